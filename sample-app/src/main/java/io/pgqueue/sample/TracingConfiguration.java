package io.pgqueue.sample;

import io.opentelemetry.exporter.logging.LoggingSpanExporter;
import io.opentelemetry.sdk.trace.export.SpanExporter;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The sample's traces go to the log, so that no collector is needed: each finished span is one log line.
 * A real application exports them to its tracing backend instead (e.g. OTLP).
 */
@Configuration(proxyBeanMethods = false)
class TracingConfiguration {

    @Bean
    SpanExporter loggingSpanExporter() {
        return LoggingSpanExporter.create();
    }
}
