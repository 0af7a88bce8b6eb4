package io.pgqueue.internal.observe;

import java.util.List;
import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.pgqueue.observation.DefaultProcessObservationConvention;
import io.pgqueue.observation.DefaultSendObservationConvention;
import io.pgqueue.observation.PgQueueObservation;
import io.pgqueue.observation.ProcessContext;
import io.pgqueue.observation.ProcessObservationConvention;
import io.pgqueue.observation.SendContext;
import io.pgqueue.observation.SendObservationConvention;
import org.jspecify.annotations.Nullable;

/**
 * pgqueue's send and process paths observed with Micrometer Observation in the application's registry, with
 * the conventions given (or the default ones).
 */
public final class MicrometerObservers {

    private MicrometerObservers() {
    }

    /** Observes sends as {@link PgQueueObservation#SEND}. */
    public static SendObserver send(ObservationRegistry registry, @Nullable SendObservationConvention convention) {
        return send(registry, convention, null);
    }

    private static SendObserver send(ObservationRegistry registry, @Nullable SendObservationConvention convention,
            @Nullable String database) {
        return new SendObserver() {
            @Override
            public SendObserver withDatabase(String name) {
                return send(registry, convention, name);
            }

            @Override
            public <T> T observe(String queue, Map<String, String> headers, int jobCount, SendWork<T> work) {
                SendContext context = new SendContext(queue, headers, jobCount);
                context.setDatabase(database);
                Observation observation = PgQueueObservation.SEND.observation(convention,
                        DefaultSendObservationConvention.INSTANCE, () -> context, registry);
                return observation.observe(() -> work.run(context.headers(), context::setJobId));
            }
        };
    }

    /** Observes handler runs as {@link PgQueueObservation#PROCESS}. */
    public static ProcessObserver process(ObservationRegistry registry,
            @Nullable ProcessObservationConvention convention) {
        return process(registry, convention, null);
    }

    private static ProcessObserver process(ObservationRegistry registry, @Nullable ProcessObservationConvention convention,
            @Nullable String database) {
        return new ProcessObserver() {
            @Override
            public ProcessObserver withDatabase(String name) {
                return process(registry, convention, name);
            }

            @Override
            public Observed start(String queue, String mode, long jobId, @Nullable Long workflowId,
                    @Nullable Long batchId, int attempt, java.util.function.Supplier<Map<String, String>> headers,
                    List<java.util.function.Supplier<Map<String, String>>> batch) {
                return observe(registry, convention, database, queue, mode, jobId, workflowId, batchId, attempt,
                        headers, batch);
            }
        };
    }

    private static ProcessObserver.Observed observe(ObservationRegistry registry,
            @Nullable ProcessObservationConvention convention, @Nullable String database, String queue, String mode,
            long jobId, @Nullable Long workflowId, @Nullable Long batchId, int attempt,
            java.util.function.Supplier<Map<String, String>> headers,
            List<java.util.function.Supplier<Map<String, String>>> batch) {
        ProcessContext context = new ProcessContext(queue, mode, jobId, attempt, headers.get(),
                batch.stream().map(java.util.function.Supplier::get).toList(), workflowId, batchId);
        context.setDatabase(database);
        Observation observation = PgQueueObservation.PROCESS.observation(convention,
                DefaultProcessObservationConvention.INSTANCE, () -> context, registry).start();
        Observation.Scope scope = observation.openScope();
        return new ProcessObserver.Observed() {
            @Override
            public void outcome(String outcome, @Nullable Throwable error) {
                context.setOutcome(outcome);
                if (error != null) {
                    observation.error(error);
                }
            }

            @Override
            public void close() {
                scope.close();
                observation.stop();
            }
        };
    }
}
