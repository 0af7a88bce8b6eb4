/**
 * The Actuator endpoint {@code /actuator/pgqueue} and the health indicator, over {@code admin} and the
 * listener registry. Public API; depends on {@code admin}, {@code listener} and {@code schedule}.
 */
@NullMarked
package io.pgqueue.actuate;

import org.jspecify.annotations.NullMarked;

