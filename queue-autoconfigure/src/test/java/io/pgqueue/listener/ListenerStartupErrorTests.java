package io.pgqueue.listener;

import java.util.List;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.model.DeliveryMode;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class ListenerStartupErrorTests {

    private static final TestDatabase database = TestPostgres.createDatabase(ListenerStartupErrorTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    record Order(long id) {
    }

    static class TwoPayloads {

        @QueueListener(queue = "orders")
        void handle(Order order, String extra) {
        }
    }

    static class BatchWithContext {

        @QueueListener(queue = "orders")
        void handle(List<Order> orders, JobContext job) {
        }
    }

    static class UnknownMode {

        @QueueListener(queue = "orders", mode = "SIDEWAYS")
        void handle(Order order) {
        }
    }

    static class BadConcurrency {

        @QueueListener(queue = "orders", concurrency = "${orders.workers:-3}")
        void handle(Order order) {
        }
    }

    static class LeaseListener {

        @QueueListener(queue = "orders", mode = "LEASE")
        void handle(Order order) {
        }
    }

    static class TransactionalListener {

        @QueueListener(queue = "orders", mode = "TRANSACTIONAL")
        void handle(Order order) {
        }
    }

    static class PlaceholderQueue {

        @QueueListener(queue = "${orders.queue}", concurrency = "${orders.workers}")
        void handle(Order order) {
        }
    }

    @Test
    void unsupportedSignatureNamesTheMethod() {
        runner.withBean(TwoPayloads.class).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                .hasStackTraceContaining("@QueueListener method " + TwoPayloads.class.getName()
                        + ".handle(Order, String) has an unsupported signature (more than one payload parameter)");
        });
        runner.withBean(BatchWithContext.class).run((context) -> assertThat(context.getStartupFailure())
            .hasStackTraceContaining(BatchWithContext.class.getName() + ".handle(List, JobContext) has an unsupported "
                    + "signature (a batch listener (List<T>) cannot take a JobContext)"));
    }

    @Test
    void invalidAnnotationValuesNameTheMethod() {
        // the valid values, as a signature error lists the supported signatures
        runner.withBean(UnknownMode.class).run((context) -> assertThat(context.getStartupFailure())
            .hasStackTraceContaining("@QueueListener method " + UnknownMode.class.getName()
                    + ".handle(Order) has an invalid mode 'SIDEWAYS': valid modes are LEASE and TRANSACTIONAL"));
        runner.withBean(BadConcurrency.class).run((context) -> assertThat(context.getStartupFailure())
            .hasStackTraceContaining("@QueueListener method " + BadConcurrency.class.getName()
                    + ".handle(Order): concurrency must be at least 1, was -3"));
    }

    @Test
    void conflictingListenersOfOneQueueNameBothMethods() {
        runner.withBean(LeaseListener.class).withBean(TransactionalListener.class).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                .hasStackTraceContaining("@QueueListener methods " + LeaseListener.class.getName() + ".handle(Order) and "
                        + TransactionalListener.class.getName()
                        + ".handle(Order) both listen to queue 'orders' with conflicting settings");
        });
    }

    @Test
    void invalidPropertiesNameTheProperty() {
        assertInvalid("pgqueue.listener.concurrency=-1", "Property pgqueue.listener.concurrency with value '-1' is "
                + "invalid: must be at least 1");
        assertInvalid("pgqueue.listener.lease-duration=0s", "Property pgqueue.listener.lease-duration with value "
                + "'PT0S' is invalid: must be longer than zero");
        assertInvalid("pgqueue.queues.orders.batch-size=0", "Property pgqueue.queues.orders.batch-size with value '0' "
                + "is invalid: must be at least 1");
        assertInvalid("pgqueue.queues.orders.prefetch=-1", "Property pgqueue.queues.orders.prefetch with value '-1' "
                + "is invalid: must be at least 0");
        assertInvalid("pgqueue.listener.backoff.multiplier=0.5", "Property pgqueue.listener.backoff.multiplier with "
                + "value '0.5' is invalid: must be at least 1");
        runner.withPropertyValues("pgqueue.listener.mode=sideways").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("pgqueue.listener.mode");
        });
    }

    @Test
    void placeholdersInAttributesAreResolved() {
        runner.withPropertyValues("orders.queue=orders-eu", "orders.workers=3")
            .withBean(PlaceholderQueue.class)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                QueueListenerContainer container = context.getBean(QueueListenerContainerRegistry.class)
                    .getListenerContainers()
                    .iterator()
                    .next();
                assertThat(container.queue()).isEqualTo("orders-eu");
                assertThat(container.options().concurrency()).isEqualTo(3);
                assertThat(container.id()).isEqualTo("orders-eu-1");
            });
    }

    @Test
    void annotationBeatsQueueSettingsWhichBeatDefaults() {
        runner.withPropertyValues("pgqueue.listener.batch-size=7", "pgqueue.listener.max-attempts=9",
                "pgqueue.queues.orders.concurrency=6", "pgqueue.queues.orders.max-attempts=2")
            .withBean(TransactionalListener.class)
            .run((context) -> {
                ContainerOptions options = context.getBean(QueueListenerContainerRegistry.class)
                    .getListenerContainers()
                    .iterator()
                    .next()
                    .options();
                assertThat(options.mode()).isEqualTo(DeliveryMode.TRANSACTIONAL);
                assertThat(options.concurrency()).isEqualTo(6);
                assertThat(options.maxAttempts()).isEqualTo(2);
                assertThat(options.batchSize()).isEqualTo(7);
            });
    }

    private void assertInvalid(String property, String message) {
        runner.withPropertyValues(property).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessage(message);
        });
    }
}
