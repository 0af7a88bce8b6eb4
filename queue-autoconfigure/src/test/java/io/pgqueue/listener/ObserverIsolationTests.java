package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.error.FailureDecision;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With observation on, what observes a run cannot break it: headers that SQL stored as something other than
 * string to string (numbers, objects, nulls) are read as text by tracing and handlers alike, and a
 * {@link JobObserver} that throws on every event is logged. Each job runs once and completes, in both modes.
 */
class ObserverIsolationTests {

    private static final TestDatabase database = TestPostgres.createDatabase(ObserverIsolationTests.class);

    private static final String ODD_HEADERS = "{\"traceparent\": 42, \"tenant\": {\"id\": 7}, \"gone\": null, \"ok\": \"yes\"}";

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.observation-enabled=true", "pgqueue.listener.max-attempts=1");

    private final Jobs jobs = new Jobs(database.dataSource());

    static class Recorder {

        final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "odd-tx", mode = "TRANSACTIONAL")
        void transactional(String payload, JobContext job) {
            headers.add(job.headers());
        }

        @QueueListener(queue = "odd-lease")
        void lease(String payload, JobContext job) {
            headers.add(job.headers());
        }
    }

    /** Reads the trace context from every run it observes, as a tracer's propagator does. */
    static final class ReadingTracing implements ObservationHandler<Observation.Context> {

        final List<String> read = new CopyOnWriteArrayList<>();

        @Override
        @SuppressWarnings("unchecked")
        public void onStart(Observation.Context context) {
            if (context instanceof ReceiverContext<?> receiver) {
                read.add(String.valueOf(((ReceiverContext<Object>) receiver).getGetter().get(receiver.getCarrier(),
                        "traceparent")));
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    /** Throws on every event. */
    static final class ThrowingObserver implements JobObserver {

        @Override
        public void started(JobContext job) {
            throw new IllegalStateException("observer broken at start");
        }

        @Override
        public void succeeded(JobContext job, Duration duration) {
            throw new IllegalStateException("observer broken at success");
        }

        @Override
        public void failed(JobContext job, Duration duration, Throwable error, FailureDecision decision) {
            throw new IllegalStateException("observer broken at failure");
        }
    }

    @Test
    void oddHeadersAndAThrowingObserverLeaveEveryJobRunOnceAndComplete() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        ReadingTracing tracing = new ReadingTracing();
        registry.observationConfig().observationHandler(tracing);
        Recorder recorder = new Recorder();
        runner.withBean(TestObservationRegistry.class, () -> registry)
            .withBean(Recorder.class, () -> recorder)
            .withBean(ThrowingObserver.class, ThrowingObserver::new)
            .run((context) -> {
                for (String queue : new String[] { "odd-tx", "odd-lease" }) {
                    jobs.jdbc().update("INSERT INTO pgqueue.job (queue, state, payload, headers) "
                            + "VALUES (?, 'ready', '\"x\"'::jsonb, ?::jsonb)", queue, ODD_HEADERS);
                }
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> jobs.count("odd-tx") == 0 && jobs.count("odd-lease") == 0);

                assertThat(recorder.headers).hasSize(2)
                    .allSatisfy((headers) -> assertThat(headers).containsExactlyInAnyOrderEntriesOf(
                            Map.of("traceparent", "42", "tenant", "{\"id\":7}", "ok", "yes")));
                assertThat(tracing.read).containsExactly("42", "42");
                assertThat(context.getBean(QueueListenerContainerRegistry.class).getListenerContainers())
                    .allSatisfy((container) -> assertThat(container.isRunning()).isTrue());
            });
    }
}
