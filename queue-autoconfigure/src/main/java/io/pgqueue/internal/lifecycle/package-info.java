/**
 * The job lifecycle and all of pgqueue's SQL: the states a job row goes through ({@link io.pgqueue.model.JobState}),
 * the transition table ({@link io.pgqueue.internal.lifecycle.Transition}), counter deltas generated from it,
 * and one repository per table with one JDBC implementation. Internal: not API, changes with the schema.
 * Depends on the public model types only ({@code io.pgqueue}, {@code admin}, {@code schedule}).
 */
@NullMarked
package io.pgqueue.internal.lifecycle;

import org.jspecify.annotations.NullMarked;
