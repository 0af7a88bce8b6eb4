/**
 * All of pgqueue's SQL, one repository per table with one JDBC implementation each, and the job lifecycle the
 * job table's statements carry out: the transition table ({@link io.pgqueue.internal.persistence.Transition})
 * with its guards and cascades, and the counter deltas generated from it. The job table's repository is used
 * through its ports (publish, engine, maintenance, admin); the history has its own repository. Internal: not
 * API, changes with the schema.
 */
@NullMarked
package io.pgqueue.internal.persistence;

import org.jspecify.annotations.NullMarked;

