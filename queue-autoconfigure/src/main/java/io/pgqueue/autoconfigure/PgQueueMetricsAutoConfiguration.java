package io.pgqueue.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.metrics.MicrometerJobObserver;
import io.pgqueue.metrics.QueueMetrics;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * pgqueue's Micrometer metrics, when Micrometer and a {@link MeterRegistry} are present and
 * {@code pgqueue.metrics.enabled} is not false.
 */
@AutoConfiguration(after = PgQueueAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, QueueAdmin.class })
@ConditionalOnBooleanProperty(name = "pgqueue.metrics.enabled", matchIfMissing = true)
public final class PgQueueMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "pgqueue.counters.enabled", matchIfMissing = true)
    QueueMetrics queueMetrics(QueueAdmin queueAdmin, PgQueueProperties properties) {
        return new QueueMetrics(queueAdmin, properties.getMetrics().getRefreshInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    MicrometerJobObserver micrometerJobObserver(MeterRegistry meterRegistry, PgQueueProperties properties) {
        // observed runs are timed by the observation: a second timer would time every run twice
        MicrometerJobObserver observer = new MicrometerJobObserver(meterRegistry,
                !properties.getListener().isObservationEnabled());
        if (!properties.getDatabases().isEmpty()) {
            observer.setDatabaseOf(properties::databaseOf);
        }
        return observer;
    }
}
