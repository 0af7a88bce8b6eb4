package io.pgqueue.support;

import java.util.List;

import io.micrometer.observation.ObservationHandler;
import io.pgqueue.observation.LinkingReceiverTracingHandler;

/** A real tracer (OpenTelemetry through Micrometer Tracing) for one application, its spans kept in memory. */
public final class RealTracing {

    public final io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter spans =
            io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter.create();

    public final io.micrometer.observation.ObservationRegistry registry = io.micrometer.observation.ObservationRegistry.create();

    public final io.micrometer.tracing.otel.bridge.OtelTracer tracer;

    public final io.micrometer.tracing.otel.bridge.OtelPropagator propagator;

    public RealTracing() {
        io.opentelemetry.sdk.OpenTelemetrySdk sdk = io.opentelemetry.sdk.OpenTelemetrySdk.builder()
            .setTracerProvider(io.opentelemetry.sdk.trace.SdkTracerProvider.builder()
                .addSpanProcessor(io.opentelemetry.sdk.trace.export.SimpleSpanProcessor.create(spans))
                .build())
            .setPropagators(io.opentelemetry.context.propagation.ContextPropagators
                .create(io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator.getInstance()))
            .build();
        io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("pgqueue-test");
        this.tracer = new io.micrometer.tracing.otel.bridge.OtelTracer(otel,
                new io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext(), (event) -> {
                });
        this.propagator = new io.micrometer.tracing.otel.bridge.OtelPropagator(sdk.getPropagators(), otel);
        // as Spring Boot groups them: pgqueue's retry handler first (its order), then the standard ones
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new LinkingReceiverTracingHandler(tracer, propagator),
                new io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new io.micrometer.tracing.handler.DefaultTracingObservationHandler(tracer)));
    }

    public List<io.opentelemetry.sdk.trace.data.SpanData> named(String name) {
        return spans.getFinishedSpanItems().stream().filter((span) -> span.getName().equals(name)).toList();
    }
}
