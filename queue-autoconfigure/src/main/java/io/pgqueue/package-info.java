@NullMarked
package io.pgqueue;

import org.jspecify.annotations.NullMarked;
