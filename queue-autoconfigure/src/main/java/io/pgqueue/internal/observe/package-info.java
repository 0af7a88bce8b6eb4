/**
 * What the send and process paths tell an observation system, in pgqueue's own terms, so that they need no
 * Micrometer class when Micrometer is absent; {@code io.pgqueue.observation} implements them with Micrometer
 * Observation.
 */
@NullMarked
package io.pgqueue.internal.observe;

import org.jspecify.annotations.NullMarked;

