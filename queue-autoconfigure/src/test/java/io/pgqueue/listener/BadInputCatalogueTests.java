package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataIntegrityViolationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The bad inputs not covered next to the features they concern (see also ListenerStartupErrorTests,
 * QueueTemplateTests, FailureHandlingTests, RecurringJobTests, PgQueueAutoConfigurationTests): each fails
 * loudly and specifically, and none corrupts the queue.
 */
class BadInputCatalogueTests {

    private static final TestDatabase database = TestPostgres.createDatabase(BadInputCatalogueTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    private final Jobs jobs = new Jobs(database.dataSource());

    record Order(long id) {
    }

    @Test
    void malformedRateFailsStartupNamingTheProperty() {
        runner.withPropertyValues("pgqueue.queues.orders.rate=lots").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageStartingWith("Property pgqueue.queues.orders.rate with value 'lots' is invalid: 'lots' is "
                        + "not a rate: use <permits>/<window>");
        });
    }

    @Test
    void unknownGroupFailurePolicyFailsStartupNamingTheProperty() {
        runner.withPropertyValues("pgqueue.queues.orders.group-failure=sometimes").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("pgqueue.queues.orders.group-failure");
        });
    }

    static class TransactionalOrders {

        @QueueListener(queue = "orders", mode = "TRANSACTIONAL")
        void handle(Order order) {
        }
    }

    @Test
    void clusterCapOnATransactionalListenerFailsStartupNamingTheMethod() {
        runner.withPropertyValues("pgqueue.queues.orders.max-running=2")
            .withBean(TransactionalOrders.class)
            .run((context) -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("@QueueListener method " + TransactionalOrders.class.getName()
                        + ".handle(Order): max-running and rate need LEASE delivery"));
    }

    static class AnythingListener {

        final List<Object> received = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "anything")
        void handle(Object payload) {
            received.add(payload);
        }
    }

    @Test
    void rowWithAnUnknownPayloadTypeIsStillDeliveredAsJson() {
        AnythingListener listener = new AnythingListener();
        runner.withBean(AnythingListener.class, () -> listener).run((context) -> {
            jobs.insertRaw("anything", "{\"id\": 7}", "com.example.RemovedLongAgo");

            await().atMost(Duration.ofSeconds(10)).until(() -> listener.received.size() == 1);

            assertThat(listener.received.get(0)).isEqualTo(Map.of("id", 7));
            assertThat(jobs.count("anything")).isZero();
        });
    }

    @Test
    void malformedJsonCannotEnterTheJobTable() {
        runner.run((context) -> {
            assertThatThrownBy(() -> jobs.insertRaw("anything", "{not json", Order.class.getName()))
                .isInstanceOf(DataIntegrityViolationException.class)
                .hasMessageContaining("invalid input syntax for type json");
            assertThat(jobs.count("anything")).isZero();
        });
    }
}
