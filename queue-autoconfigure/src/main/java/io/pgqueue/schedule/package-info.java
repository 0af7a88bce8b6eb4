@NullMarked
package io.pgqueue.schedule;

import org.jspecify.annotations.NullMarked;
