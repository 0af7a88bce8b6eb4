@NullMarked
package io.pgqueue.store;

import org.jspecify.annotations.NullMarked;
