package io.pgqueue.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.RealTracing;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sends and handler runs observed with Micrometer Observation, and the trace context carried from the sending
 * application to the processing one in the job's headers. A stand-in for a tracer writes and reads the
 * {@code traceparent} header as a propagating tracing handler would.
 */
class ObservationTests {

    private static final TestDatabase database = TestPostgres.createDatabase(ObservationTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    private final Jobs jobs = new Jobs(database.dataSource());

    record Order(String item) {
    }

    /** Fails the first attempt of an order named "flaky". */
    static class Orders {

        final AtomicInteger runs = new AtomicInteger();

        private final java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();

        @QueueListener(queue = "traced", maxAttempts = "3")
        void handle(Order order) {
            runs.incrementAndGet();
            if (order.item().equals("flaky") && failed.compareAndSet(false, true)) {
                throw new IllegalStateException("first attempt fails");
            }
        }
    }

    /** Writes a trace context when a send starts and records the one a handler run receives. */
    static final class StandInTracing implements ObservationHandler<Observation.Context> {

        static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

        final List<String> received = new CopyOnWriteArrayList<>();

        @Override
        @SuppressWarnings("unchecked")
        public void onStart(Observation.Context context) {
            if (context instanceof SenderContext<?> sender) {
                ((SenderContext<Object>) sender).getSetter().set(sender.getCarrier(), "traceparent", TRACEPARENT);
            }
            else if (context instanceof ReceiverContext<?> receiver) {
                String value = ((ReceiverContext<Object>) receiver).getGetter().get(receiver.getCarrier(), "traceparent");
                received.add((value != null) ? value : "none");
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @Test
    void nothingIsObservedUnlessSwitchedOn() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        Orders orders = new Orders();
        runner.withBean(TestObservationRegistry.class, () -> registry).withBean(Orders.class, () -> orders)
            .run((context) -> {
                context.getBean(QueueTemplate.class).send("traced", new Order("book"));
                await().atMost(Duration.ofSeconds(10)).until(() -> orders.runs.get() == 1 && jobs.count("traced") == 0);
                TestObservationRegistryAssert.assertThat(registry).doesNotHaveAnyObservation();
            });
    }

    @Test
    void theProcessingNodeContinuesTheTraceTheSendingNodeWroteIntoTheJob() {
        TestObservationRegistry senderRegistry = TestObservationRegistry.create();
        StandInTracing senderTracing = new StandInTracing();
        senderRegistry.observationConfig().observationHandler(senderTracing);
        TestObservationRegistry workerRegistry = TestObservationRegistry.create();
        StandInTracing workerTracing = new StandInTracing();
        workerRegistry.observationConfig().observationHandler(workerTracing);
        Orders orders = new Orders();

        // the sending application: no listener
        runner.withPropertyValues("pgqueue.template.observation-enabled=true")
            .withBean(TestObservationRegistry.class, () -> senderRegistry)
            .run((sender) -> runner.withPropertyValues("pgqueue.listener.observation-enabled=true")
                .withBean(TestObservationRegistry.class, () -> workerRegistry)
                .withBean(Orders.class, () -> orders)
                .run((worker) -> {
                    long id = sender.getBean(QueueTemplate.class).send("traced", new Order("book"));
                    await().atMost(Duration.ofSeconds(10)).until(() -> workerTracing.received.size() == 1);

                    TestObservationRegistryAssert.assertThat(senderRegistry)
                        .hasObservationWithNameEqualTo("pgqueue.send")
                        .that()
                        .hasContextualNameEqualTo("traced send")
                        .hasLowCardinalityKeyValue("pgqueue.queue", "traced")
                        .hasHighCardinalityKeyValue("pgqueue.job.id", Long.toString(id))
                        .hasBeenStopped();
                    assertThat(workerTracing.received).containsExactly(StandInTracing.TRACEPARENT);
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> TestObservationRegistryAssert
                        .assertThat(workerRegistry)
                        .hasObservationWithNameEqualTo("pgqueue.process")
                        .that()
                        .hasLowCardinalityKeyValue("pgqueue.queue", "traced")
                        .hasLowCardinalityKeyValue("pgqueue.mode", "lease")
                        .hasLowCardinalityKeyValue("pgqueue.outcome", "success")
                        .hasHighCardinalityKeyValue("pgqueue.job.id", Long.toString(id))
                        .hasHighCardinalityKeyValue("pgqueue.job.attempt", "1")
                        .hasBeenStopped());

                    // a batch's jobs carry the batch's trace context too, and a retry still sees where the job
                    // came from (the tracing handler links to it: see the real tracer's test)
                    sender.getBean(QueueTemplate.class).sendBatch("traced", List.of(new Order("flaky")));
                    await().atMost(Duration.ofSeconds(10)).until(() -> workerTracing.received.size() == 3);
                    assertThat(workerTracing.received).containsOnly(StandInTracing.TRACEPARENT);
                }));
    }

    @Test
    void withARealTracerAJobsProcessSpanIsAChildOfItsSendSpanInTheRequestsTrace() {
        RealTracing senderTracing = new RealTracing();
        RealTracing workerTracing = new RealTracing();
        Orders orders = new Orders();
        runner.withPropertyValues("pgqueue.template.observation-enabled=true")
            .withBean(io.micrometer.observation.ObservationRegistry.class, () -> senderTracing.registry)
            .run((sender) -> runner.withPropertyValues("pgqueue.listener.observation-enabled=true")
                .withBean(io.micrometer.observation.ObservationRegistry.class, () -> workerTracing.registry)
                .withBean(Orders.class, () -> orders)
                .run((worker) -> {
                    // a traced request of the sending application sends the job
                    Observation.createNotStarted("http.request", senderTracing.registry)
                        .observe(() -> sender.getBean(QueueTemplate.class).send("traced", new Order("book")));
                    await().atMost(Duration.ofSeconds(10)).until(() -> workerTracing.named("traced process").size() == 1);

                    var request = senderTracing.named("http.request").get(0);
                    var send = senderTracing.named("traced send").get(0);
                    var process = workerTracing.named("traced process").get(0);
                    assertThat(send.getTraceId()).isEqualTo(request.getTraceId());
                    assertThat(send.getParentSpanId()).isEqualTo(request.getSpanId());
                    assertThat(process.getTraceId()).as("the worker continues the request's trace").isEqualTo(request.getTraceId());
                    assertThat(process.getParentSpanId()).as("process is a child of send").isEqualTo(send.getSpanId());

                    // a retry: the first attempt in the request's trace, the second in a trace of its own, linked
                    // to the span that sent the job
                    Observation.createNotStarted("http.request", senderTracing.registry)
                        .observe(() -> sender.getBean(QueueTemplate.class).send("traced", new Order("flaky")));
                    await().atMost(Duration.ofSeconds(10)).until(() -> workerTracing.named("traced process").size() == 3);
                    var flakySend = senderTracing.named("traced send").get(1);
                    var attempts = workerTracing.named("traced process").subList(1, 3);
                    assertThat(attempts.get(0).getTraceId()).isEqualTo(flakySend.getTraceId());
                    assertThat(attempts.get(0).getParentSpanId()).isEqualTo(flakySend.getSpanId());
                    assertThat(attempts.get(1).getTraceId()).isNotEqualTo(flakySend.getTraceId());
                    assertThat(attempts.get(1).getParentSpanContext().isValid()).as("a retry has no parent").isFalse();
                    assertThat(attempts.get(1).getLinks()).singleElement().satisfies((link) -> {
                        assertThat(link.getSpanContext().getTraceId()).isEqualTo(flakySend.getTraceId());
                        assertThat(link.getSpanContext().getSpanId()).isEqualTo(flakySend.getSpanId());
                    });
                }));
    }

    /** A batch listener. */
    static class Batches {

        final List<Integer> sizes = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "traced-batches", batchSize = "10")
        void handle(List<Order> orders) {
            sizes.add(orders.size());
        }
    }

    @Test
    void aBatchListenersRunIsOneSpanLinkedToTheSendOfEachOfItsJobs() {
        RealTracing senderTracing = new RealTracing();
        RealTracing workerTracing = new RealTracing();
        Batches batches = new Batches();
        runner.withPropertyValues("pgqueue.template.observation-enabled=true")
            .withBean(io.micrometer.observation.ObservationRegistry.class, () -> senderTracing.registry)
            .run((sender) -> {
                // three requests, each sending one job, before any worker runs
                for (String item : List.of("a", "b", "c")) {
                    Observation.createNotStarted("http.request", senderTracing.registry)
                        .observe(() -> sender.getBean(QueueTemplate.class).send("traced-batches", new Order(item)));
                }
                runner.withPropertyValues("pgqueue.listener.observation-enabled=true")
                    .withBean(io.micrometer.observation.ObservationRegistry.class, () -> workerTracing.registry)
                    .withBean(Batches.class, () -> batches)
                    .run((worker) -> {
                        await().atMost(Duration.ofSeconds(10))
                            .until(() -> workerTracing.named("traced-batches process").size() == 1);
                        assertThat(batches.sizes).containsExactly(3);
                        var run = workerTracing.named("traced-batches process").get(0);
                        var sends = senderTracing.named("traced-batches send");
                        assertThat(run.getParentSpanContext().isValid()).isFalse();
                        assertThat(run.getLinks()).extracting((link) -> link.getSpanContext().getSpanId())
                            .containsExactlyInAnyOrderElementsOf(sends.stream().map((send) -> send.getSpanId()).toList());
                    });
            });
    }

    @Test
    void theRetryLinkingHandlerIsConfiguredWhenTheApplicationTracesAndHandlerRunsAreObserved() {
        RealTracing tracing = new RealTracing();
        org.springframework.boot.test.context.runner.ApplicationContextRunner traced = new org.springframework.boot.test.context.runner.ApplicationContextRunner()
            .withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations
                .of(io.pgqueue.autoconfigure.PgQueueTracingAutoConfiguration.class))
            .withBean(io.micrometer.tracing.Tracer.class, () -> tracing.tracer)
            .withBean(io.micrometer.tracing.propagation.Propagator.class, () -> tracing.propagator);
        traced.withPropertyValues("pgqueue.listener.observation-enabled=true")
            .run((context) -> assertThat(context).hasSingleBean(LinkingReceiverTracingHandler.class));
        traced.run((context) -> assertThat(context).doesNotHaveBean(LinkingReceiverTracingHandler.class));
    }

    @Test
    void conventionBeansReplaceNamesAndTags() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        Orders orders = new Orders();
        runner.withPropertyValues("pgqueue.listener.observation-enabled=true", "pgqueue.template.observation-enabled=true")
            .withBean(TestObservationRegistry.class, () -> registry)
            .withBean(Orders.class, () -> orders)
            .withBean(ProcessObservationConvention.class, () -> new ProcessObservationConvention() {
                @Override
                public String getName() {
                    return "orders.handled";
                }

                @Override
                public KeyValues getLowCardinalityKeyValues(ProcessContext context) {
                    return KeyValues.of("shop.queue", context.queue());
                }
            })
            .withBean(SendObservationConvention.class, () -> new SendObservationConvention() {
                @Override
                public String getName() {
                    return "orders.placed";
                }

                @Override
                public KeyValues getLowCardinalityKeyValues(SendContext context) {
                    return KeyValues.of("shop.queue", context.queue());
                }
            })
            .run((context) -> {
                context.getBean(QueueTemplate.class).send("traced", new Order("pen"));
                TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo("orders.placed")
                    .that()
                    .hasLowCardinalityKeyValue("shop.queue", "traced");
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo("orders.handled")
                    .that()
                    .hasLowCardinalityKeyValue("shop.queue", "traced")
                    .hasBeenStopped());
            });
    }
}
