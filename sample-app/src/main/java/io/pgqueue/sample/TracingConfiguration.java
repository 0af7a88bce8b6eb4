package io.pgqueue.sample;

import io.opentelemetry.exporter.logging.LoggingSpanExporter;
import io.opentelemetry.sdk.trace.export.SpanExporter;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With {@code --sample.log-spans=true}, the sample's traces go to the log, so that no collector is needed: each
 * finished span is one log line (off by default, to keep the log quiet). A real application exports them to its
 * tracing backend instead (e.g. OTLP).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("sample.log-spans")
class TracingConfiguration {

    @Bean
    SpanExporter loggingSpanExporter() {
        return LoggingSpanExporter.create();
    }
}
