/**
 * Micrometer Observation of publishing ({@code pgqueue.send}) and processing ({@code pgqueue.process}) jobs,
 * laid out as Spring Kafka's: documented observations, replaceable conventions, and sender/receiver contexts
 * that carry the trace context in the job's headers.
 */
@NullMarked
package io.pgqueue.observation;

import org.jspecify.annotations.NullMarked;

