package io.pgqueue.autoconfigure;

import io.pgqueue.actuate.PgQueueEndpoint;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.config.QueueListenerContainerRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code pgqueue} Actuator endpoint, when Actuator is present and the endpoint is available (exposing it
 * over HTTP is the application's choice: {@code management.endpoints.web.exposure.include=pgqueue}). Its
 * access is read-only unless {@code management.endpoint.pgqueue.access=unrestricted}.
 */
@AutoConfiguration(after = PgQueueAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(PgQueueEndpoint.class)
@ConditionalOnBean(QueueAdmin.class)
@EnableConfigurationProperties(PgQueueEndpointProperties.class)
public final class PgQueueEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PgQueueEndpoint pgQueueEndpoint(QueueAdmin queueAdmin, ObjectProvider<QueueListenerContainerRegistry> registry,
            PgQueueEndpointProperties properties) {
        return new PgQueueEndpoint(queueAdmin, registry.getIfAvailable(), properties.getShowValues(),
                properties.getRoles());
    }
}
