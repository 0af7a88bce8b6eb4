@NullMarked
package io.pgqueue.listener.error;

import org.jspecify.annotations.NullMarked;
