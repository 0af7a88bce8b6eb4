package io.pgqueue.autoconfigure;

import io.pgqueue.actuate.PgQueueHealthIndicator;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.config.QueueListenerContainerRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;

/**
 * The {@code pgqueue} health indicator ({@code management.health.pgqueue.enabled}).
 */
@AutoConfiguration(after = PgQueueAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(QueueAdmin.class)
@ConditionalOnEnabledHealthIndicator("pgqueue")
public final class PgQueueHealthContributorAutoConfiguration {

    @Bean(name = "pgqueueHealthIndicator")
    @ConditionalOnMissingBean(name = "pgqueueHealthIndicator")
    PgQueueHealthIndicator pgqueueHealthIndicator(QueueAdmin queueAdmin,
            ObjectProvider<QueueListenerContainerRegistry> registry, PgQueueProperties properties) {
        PgQueueProperties.Health health = properties.getHealth();
        return new PgQueueHealthIndicator(queueAdmin, registry.getIfAvailable(), health.getMaxLag(),
                new Status(health.getLagStatus()), health.getVacuumHoldWarning(), health.getResponseTimeout(),
                health.getUnattendedAfter());
    }
}
