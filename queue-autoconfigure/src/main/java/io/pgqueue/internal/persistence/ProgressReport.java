package io.pgqueue.internal.persistence;

import org.jspecify.annotations.Nullable;

/**
 * The latest progress a handler reported.
 *
 * @param jobId the job
 * @param attempt the attempt that reported it
 * @param percent 0 to 100
 * @param message what the handler is doing, or null
 */
public record ProgressReport(long jobId, int attempt, short percent, @Nullable String message) {
}
