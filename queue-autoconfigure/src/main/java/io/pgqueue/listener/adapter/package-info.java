@NullMarked
package io.pgqueue.listener.adapter;

import org.jspecify.annotations.NullMarked;
