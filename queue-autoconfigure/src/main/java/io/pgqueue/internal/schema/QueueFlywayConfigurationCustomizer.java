package io.pgqueue.internal.schema;

import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * Callback to adjust pgqueue's private Flyway before it migrates (Boot's {@code spring.flyway.*} settings do
 * not apply to it).
 */
@FunctionalInterface
public interface QueueFlywayConfigurationCustomizer {

    void customize(FluentConfiguration configuration);
}
