package io.pgqueue.benchmark;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.QueueListenerContainer;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application using pgqueue the way a user would, started inside the benchmark: a no-op
 * listener on {@code bench.queue} whose mode, concurrency and batch size come from properties.
 */
final class PgQueueApp implements AutoCloseable {

    private final ConfigurableApplicationContext context;

    private PgQueueApp(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /**
     * Starts the application on the database with these properties (listeners do not start by themselves:
     * call {@link #startListeners()} once the clock runs).
     */
    static PgQueueApp start(BenchServer.Database database, int poolSize, Map<String, Object> properties) {
        return start(database.url, database.pool.getUsername(), database.pool.getPassword(), poolSize, properties);
    }

    static PgQueueApp start(String url, String username, String password, int poolSize,
            Map<String, Object> properties) {
        Map<String, Object> all = new HashMap<>();
        all.put("spring.datasource.url", url);
        all.put("spring.datasource.username", username);
        all.put("spring.datasource.password", password);
        all.put("spring.datasource.hikari.maximum-pool-size", poolSize);
        all.put("spring.datasource.hikari.minimum-idle", poolSize);
        all.put("pgqueue.listener.auto-startup", "false");
        all.put("logging.level.root", "WARN");
        all.put("logging.level.io.pgqueue", "WARN");
        all.put("bench.listen", "false");
        all.putAll(properties);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .logStartupInfo(false)
            .properties(all)
            .run();
        return new PgQueueApp(context);
    }

    QueueTemplate template() {
        return context.getBean(QueueTemplate.class);
    }

    NoopListener listener() {
        return context.getBean(NoopListener.class);
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    void startListeners() {
        context.getBean(QueueListenerContainerRegistry.class)
            .getListenerContainers()
            .forEach(QueueListenerContainer::start);
    }

    @Override
    public void close() {
        context.close();
    }

    /** Does nothing with the job but count it and record how long it waited. */
    static class NoopListener {

        final AtomicLong handled = new AtomicLong();

        @QueueListener(queue = "${bench.queue}", mode = "${bench.mode:LEASE}", concurrency = "${bench.concurrency:4}",
                batchSize = "${bench.batch:10}")
        void handle(JobContext job) {
            handled.incrementAndGet();
        }
    }

    /** A listener that reads the send time from the payload, for latency scenarios. */
    static class TimedListener {

        final AtomicLong handled = new AtomicLong();

        final Latencies latencies = new Latencies(2_000_000);

        @QueueListener(queue = "${bench.timed-queue}", concurrency = "${bench.concurrency:4}",
                batchSize = "${bench.batch:10}")
        void handle(Tick tick) {
            latencies.record(System.nanoTime() - tick.sentNanos());
            handled.incrementAndGet();
        }
    }

    /**
     * A job carrying its send time.
     *
     * @param sentNanos {@link System#nanoTime()} when it was sent
     */
    record Tick(long sentNanos) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        /**
         * Only where a scenario counts statements: the proxies cost every JDBC call a reflective hop, which the
         * raw baselines would not pay.
         */
        @Bean
        @ConditionalOnBooleanProperty(StatementCounting.PROPERTY)
        static StatementCounting statementCounting() {
            return new StatementCounting();
        }

        @Bean
        @ConditionalOnBooleanProperty("bench.listen")
        NoopListener noopListener() {
            return new NoopListener();
        }

        @Bean
        @ConditionalOnBooleanProperty("bench.timed")
        TimedListener timedListener() {
            return new TimedListener();
        }

        @Bean
        @ConditionalOnBooleanProperty("bench.workflow-nodes")
        WorkflowsScenario.Nodes workflowNodes() {
            return new WorkflowsScenario.Nodes();
        }

        @Bean
        @ConditionalOnBooleanProperty("bench.batch-members")
        BatchesScenario.Members batchMembers() {
            return new BatchesScenario.Members();
        }

        @Bean
        @ConditionalOnBooleanProperty("bench.fairness")
        FairnessScenario.Handlers fairnessHandlers() {
            return new FairnessScenario.Handlers();
        }

        @Bean
        @ConditionalOnBooleanProperty("bench.workflow-parent")
        WorkflowsScenario.Parent workflowParent() {
            return new WorkflowsScenario.Parent();
        }

        @Bean
        @ConditionalOnBooleanProperty("bench.workflow-child")
        WorkflowsScenario.Child workflowChild() {
            return new WorkflowsScenario.Child();
        }
    }
}
