@NullMarked
package io.pgqueue.support;

import org.jspecify.annotations.NullMarked;
