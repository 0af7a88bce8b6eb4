package io.pgqueue.model;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A step a job's runs completed (durable execution): a step, a sleep, an awaited event or job, a spawned job.
 *
 * @param name the step's name ({@code pgqueue.sleep}, {@code pgqueue.event:<key>}, {@code pgqueue.spawn:<queue>},
 * {@code pgqueue.job:<id>} for pgqueue's own)
 * @param occurrence which use of the name within a run, from 1
 * @param kind {@code step}, {@code sleep}, {@code event}, {@code spawn} or {@code job}
 * @param result the stored result as JSON; null when it has none, or when content is hidden (as outputs are)
 * @param startedAt when the run that completed it started it
 * @param finishedAt when it was recorded
 */
public record JobStep(String name, int occurrence, String kind, @Nullable String result, Instant startedAt,
        Instant finishedAt) {
}
