@NullMarked
package io.pgqueue.listener;

import org.jspecify.annotations.NullMarked;
