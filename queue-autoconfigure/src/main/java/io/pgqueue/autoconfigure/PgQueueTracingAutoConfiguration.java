package io.pgqueue.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.pgqueue.observation.LinkingReceiverTracingHandler;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * When the application traces (a Micrometer Tracing {@code Tracer} and {@code Propagator}) and handler runs
 * are observed: a retry's span, and a batch listener's, is linked to the span(s) that sent the job(s) rather
 * than added to their trace.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
        "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
        "org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration" })
@ConditionalOnClass({ ObservationRegistry.class, Tracer.class })
@ConditionalOnBooleanProperty("pgqueue.listener.observation-enabled")
public final class PgQueueTracingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean({ Tracer.class, Propagator.class })
    @Order(Ordered.HIGHEST_PRECEDENCE)
    LinkingReceiverTracingHandler pgqueueLinkingReceiverTracingHandler(Tracer tracer, Propagator propagator) {
        return new LinkingReceiverTracingHandler(tracer, propagator);
    }
}
