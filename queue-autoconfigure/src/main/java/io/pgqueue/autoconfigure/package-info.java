@NullMarked
package io.pgqueue.autoconfigure;

import org.jspecify.annotations.NullMarked;
