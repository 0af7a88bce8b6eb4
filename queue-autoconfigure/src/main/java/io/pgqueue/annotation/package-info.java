@NullMarked
package io.pgqueue.annotation;

import org.jspecify.annotations.NullMarked;
