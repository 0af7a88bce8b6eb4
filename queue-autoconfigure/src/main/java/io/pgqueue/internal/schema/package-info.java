/**
 * pgqueue's own schema: migration with a private Flyway (its own history table, ordered before the
 * application's initialisers) or validation when migration is off. Depends on {@code internal.persistence}.
 */
@NullMarked
package io.pgqueue.internal.schema;

import org.jspecify.annotations.NullMarked;

