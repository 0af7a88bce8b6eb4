@NullMarked
package io.pgqueue.metrics;

import org.jspecify.annotations.NullMarked;
