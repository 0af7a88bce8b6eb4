@NullMarked
package io.pgqueue.actuate;

import org.jspecify.annotations.NullMarked;
