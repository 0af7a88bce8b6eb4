package io.pgqueue.observation;

import java.util.List;
import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.TracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import org.jspecify.annotations.Nullable;

/**
 * Gives a retry (attempt 2 or later) a span of its own, linked to the span that sent the job instead of a
 * child of it: a trace of a request then ends with the job's first attempt, and a retry hours later does not
 * stretch it. A batch listener's run, whose jobs were sent in many traces, gets a span of its own linked to
 * each job's sending span. Handles only those; every other context goes to the application's own handlers
 * (this one is ordered before them). It delegates to a receiver handler of its own rather than extending
 * Micrometer's, so that it never stands in for the application's receiver handler bean.
 */
public class LinkingReceiverTracingHandler implements TracingObservationHandler<ProcessContext> {

    private final Linking receiver;

    public LinkingReceiverTracingHandler(Tracer tracer, Propagator propagator) {
        this.receiver = new Linking(tracer, propagator);
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof ProcessContext process
                && ((process.attempt() > 1 && process.traceparent() != null) || !process.batch().isEmpty());
    }

    @Override
    public void onStart(ProcessContext context) {
        receiver.onStart(context);
    }

    @Override
    public void onError(ProcessContext context) {
        receiver.onError(context);
    }

    @Override
    public void onStop(ProcessContext context) {
        receiver.onStop(context);
    }

    @Override
    public Tracer getTracer() {
        return receiver.getTracer();
    }

    /** The receiver span without a parent, linked to the sending span(s). */
    private static final class Linking extends PropagatingReceiverTracingObservationHandler<ProcessContext> {

        private final Tracer tracer;

        Linking(Tracer tracer, Propagator propagator) {
            super(tracer, propagator);
            this.tracer = tracer;
        }

        @Override
        public Span.Builder customizeExtractedSpan(ProcessContext context, Span.Builder builder) {
            builder.setNoParent();
            List<Map<String, String>> senders = context.batch().isEmpty() ? List.of(context.getCarrier())
                    : context.batch();
            for (Map<String, String> headers : senders) {
                String traceparent = ProcessContext.traceparent(headers);
                TraceContext sent = (traceparent != null) ? sentFrom(traceparent) : null;
                if (sent != null) {
                    builder.addLink(new Link(sent));
                }
            }
            return builder;
        }

        /** The sending span of a W3C {@code traceparent} (version-traceid-spanid-flags). */
        private @Nullable TraceContext sentFrom(String traceparent) {
            String[] parts = traceparent.split("-");
            if (parts.length != 4 || parts[1].length() != 32 || parts[2].length() != 16) {
                return null;
            }
            return tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(parts[3].endsWith("1"))
                .build();
        }
    }
}
