/**
 * What happens when a handler fails: the error handler that decides retry or dead, backoff, and the
 * exceptions that steer it. Public API; depends on nothing else of pgqueue.
 */
@NullMarked
package io.pgqueue.listener.error;

import org.jspecify.annotations.NullMarked;
