package io.pgqueue.autoconfigure.aot;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.testsupport.AheadOfTime;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application processed ahead of time, as for a native image: its bean definitions generated as code,
 * compiled, and that code (no classpath scanning, no reflection on configuration classes) starts the
 * application, which migrates, sends and handles a job.
 */
@CompileWithForkedClassLoader
class AotApplicationContextTests {

    private static final TestDatabase database = TestPostgres.createDatabase(AotApplicationContextTests.class);

    /** The application's own part: one listener. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
            PgQueueAutoConfiguration.class })
    public static class Application {

        @Bean
        public Inbox inbox() {
            return new Inbox();
        }
    }

    public static class Inbox {

        final List<String> received = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "aot")
        public void handle(String message) {
            received.add(message);
        }
    }

    @Test
    void anApplicationProcessedAheadOfTimeStartsAndHandlesAJob() {
        String[] properties = database.springProperties();
        AheadOfTime.run(Application.class, properties, (hints, application) -> {
            // the hints a native image of it would be built with
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Inbox.class, "handle")).accepts(hints);
            assertThat(RuntimeHintsPredicates.resource().forResource("io/pgqueue/db/migration/V1__create_queue_tables.sql"))
                .accepts(hints);

            application.getBean(QueueTemplate.class).send("aot", "hello from native");
            Inbox inbox = application.getBean(Inbox.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> inbox.received.contains("hello from native"));
            assertThat(inbox.received).containsExactly("hello from native");
        });
    }
}
