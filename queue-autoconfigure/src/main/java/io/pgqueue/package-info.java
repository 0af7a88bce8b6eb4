/**
 * Publishing jobs: {@link io.pgqueue.QueueOperations} and its {@link io.pgqueue.QueueTemplate}, send options and
 * results, and {@link io.pgqueue.model.JobState}, the states of a job. Public API; depends on nothing else of
 * pgqueue but the internal repositories and wake-ups it delegates to.
 */
@NullMarked
package io.pgqueue;

import org.jspecify.annotations.NullMarked;

