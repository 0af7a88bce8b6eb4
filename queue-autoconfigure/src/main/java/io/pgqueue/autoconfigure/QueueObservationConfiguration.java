package io.pgqueue.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.pgqueue.internal.observe.MicrometerObservers;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.observe.SendObserver;
import io.pgqueue.observation.ProcessObservationConvention;
import io.pgqueue.observation.SendObservationConvention;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer Observation of sends and handler runs, each when switched on and Micrometer is present, in the
 * application's {@code ObservationRegistry} (none: nothing is observed), with the application's convention
 * beans when it declares them.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(ObservationRegistry.class)
class QueueObservationConfiguration {

    @Bean
    @ConditionalOnBooleanProperty("pgqueue.template.observation-enabled")
    SendObserver pgqueueSendObserver(ObjectProvider<ObservationRegistry> registry,
            ObjectProvider<SendObservationConvention> convention) {
        ObservationRegistry observations = registry.getIfUnique();
        return (observations != null) ? MicrometerObservers.send(observations, convention.getIfUnique())
                : SendObserver.NONE;
    }

    @Bean
    @ConditionalOnBooleanProperty("pgqueue.listener.observation-enabled")
    ProcessObserver pgqueueProcessObserver(ObjectProvider<ObservationRegistry> registry,
            ObjectProvider<ProcessObservationConvention> convention) {
        ObservationRegistry observations = registry.getIfUnique();
        return (observations != null) ? MicrometerObservers.process(observations, convention.getIfUnique())
                : ProcessObserver.NONE;
    }
}
