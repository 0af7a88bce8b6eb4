package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ConsumptionTests {

    private static final TestDatabase database = TestPostgres.createDatabase(ConsumptionTests.class);

    private static final int JOBS = 10_000;

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    private final Jobs jobs = new Jobs(database.dataSource());

    record Work(int n) {
    }

    @BeforeAll
    static void createEffectsTable() {
        new JdbcTemplate(database.dataSource())
            .execute("CREATE TABLE effect (job_id bigint PRIMARY KEY, n int NOT NULL, attempt int NOT NULL)");
    }

    @Test
    void transactionalListenersInTwoContextsHandleEveryJobExactlyOnce() {
        runner.run((publisher) -> publisher.getBean(QueueTemplate.class)
            .sendBatch("tx-work", IntStream.range(0, JOBS).mapToObj(Work::new).toList()));

        ApplicationContextRunner consumers = runner.withUserConfiguration(TransactionalEffects.class);
        consumers.run((first) -> consumers.run((second) -> {
            assertThat(first).hasNotFailed();
            assertThat(second).hasNotFailed();
            await().atMost(Duration.ofSeconds(60)).until(() -> jobs.count("tx-work") == 0);
        }));

        JdbcTemplate jdbc = jobs.jdbc();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM effect", Long.class)).isEqualTo(JOBS);
        assertThat(jdbc.queryForObject("SELECT count(DISTINCT n) FROM effect", Long.class)).isEqualTo(JOBS);
        assertThat(jdbc.queryForObject("SELECT max(attempt) FROM effect", Integer.class)).isEqualTo(1);
    }

    @Test
    void leaseListenersInTwoContextsHandleEveryJobOnce() {
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        runner.run((publisher) -> publisher.getBean(QueueTemplate.class)
            .sendBatch("lease-work", IntStream.range(0, JOBS).mapToObj(Work::new).toList()));

        ApplicationContextRunner consumers = runner.withBean(LeaseRecorder.class, () -> new LeaseRecorder(handled));
        consumers.run((first) -> consumers.run((second) -> {
            assertThat(first).hasNotFailed();
            assertThat(second).hasNotFailed();
            await().atMost(Duration.ofSeconds(60)).until(() -> jobs.count("lease-work") == 0);
        }));

        assertThat(handled).hasSize(JOBS);
        assertThat(handled.values()).allMatch((count) -> count.get() == 1);
    }

    @Test
    void batchListenerReceivesClaimedJobsTogether() {
        List<List<Work>> batches = new CopyOnWriteArrayList<>();
        runner.withBean(BatchRecorder.class, () -> new BatchRecorder(batches)).run((context) -> {
            context.getBean(QueueTemplate.class)
                .sendBatch("batch-work", IntStream.range(0, 100).mapToObj(Work::new).toList(),
                        SendOptions.defaults());
            await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("batch-work") == 0);
        });

        assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(100);
        assertThat(batches).allMatch((batch) -> batch.size() <= 25);
        assertThat(batches.stream().mapToInt(List::size).max().orElseThrow()).isGreaterThan(1);
    }

    @Test
    void higherPriorityRunsFirst() {
        List<Integer> order = new CopyOnWriteArrayList<>();
        runner.withPropertyValues("pgqueue.listener.auto-startup=false")
            .withBean(OrderRecorder.class, () -> new OrderRecorder(order))
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.send("ordered", new Work(1), SendOptions.builder().priority(0).build());
                template.send("ordered", new Work(2), SendOptions.builder().priority(10).build());
                template.send("ordered", new Work(3), SendOptions.builder().priority(0).build());
                template.send("ordered", new Work(4), SendOptions.builder().priority(-5).build());
                context.getBean(QueueListenerContainerRegistry.class).getListenerContainers().forEach(
                        QueueListenerContainer::start);
                await().atMost(Duration.ofSeconds(20)).until(() -> order.size() == 4);
            });

        assertThat(order).containsExactly(2, 1, 3, 4);
    }

    /** With auto-startup off, the application starts its listeners later with one call on the registry. */
    @Test
    void listenersKeptBackByAutoStartupStartWithTheRegistry() {
        List<Integer> order = new CopyOnWriteArrayList<>();
        runner.withPropertyValues("pgqueue.listener.auto-startup=false")
            .withBean(OrderRecorder.class, () -> new OrderRecorder(order))
            .run((context) -> {
                QueueListenerContainerRegistry registry = context.getBean(QueueListenerContainerRegistry.class);
                assertThat(registry.getListenerContainers()).isNotEmpty().noneMatch(QueueListenerContainer::isRunning);
                context.getBean(QueueTemplate.class).send("ordered", new Work(7));

                registry.start();
                assertThat(registry.getListenerContainers()).allMatch(QueueListenerContainer::isRunning);
                await().atMost(Duration.ofSeconds(20)).until(() -> order.size() == 1);
            });
        assertThat(order).containsExactly(7);
    }

    @Test
    void withCountersOffEveryStatementStillWorksAndWritesNoDeltas() {
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        runner.withPropertyValues("pgqueue.counters.enabled=false", "pgqueue.maintenance.enabled=false")
            .withBean(UncountedRecorder.class, () -> new UncountedRecorder(handled))
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.sendBatch("uncounted", IntStream.range(0, 50).mapToObj(Work::new).toList());
                template.send("uncounted", new Work(-1), SendOptions.builder().delay(Duration.ofMillis(100)).build());

                await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("uncounted", "dead") == 1
                        && jobs.count("uncounted") == 1);

                assertThat(handled).hasSize(51);
                assertThat(jobs.jdbc().queryForObject(
                        "SELECT count(*) FROM pgqueue.queue_counter_delta WHERE queue = 'uncounted'", Long.class))
                    .isZero();
            });
    }

    static class UncountedRecorder {

        private final Map<Integer, AtomicInteger> handled;

        UncountedRecorder(Map<Integer, AtomicInteger> handled) {
            this.handled = handled;
        }

        @QueueListener(queue = "uncounted", maxAttempts = "2")
        void handle(Work work) {
            handled.computeIfAbsent(work.n(), (n) -> new AtomicInteger()).incrementAndGet();
            if (work.n() == -1) {
                throw new IllegalStateException("fails until dead");
            }
        }
    }

    @Test
    void delayedJobIsScheduledUntilDueThenRuns() {
        List<Long> handledAtNanos = new CopyOnWriteArrayList<>();
        runner.withBean(DelayRecorder.class, () -> new DelayRecorder(handledAtNanos)).run((context) -> {
            long sentAt = System.nanoTime();
            long id = context.getBean(QueueTemplate.class)
                .send("later", new Work(1), SendOptions.builder().delay(Duration.ofMillis(700)).build())
                .jobId();
            assertThat(jobs.row(id).get("state")).isEqualTo("scheduled");

            await().atMost(Duration.ofSeconds(10)).until(() -> handledAtNanos.size() == 1);

            assertThat(Duration.ofNanos(handledAtNanos.get(0) - sentAt)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
        });
    }

    static class DelayRecorder {

        private final List<Long> handledAtNanos;

        DelayRecorder(List<Long> handledAtNanos) {
            this.handledAtNanos = handledAtNanos;
        }

        @QueueListener(queue = "later")
        void handle(Work work) {
            handledAtNanos.add(System.nanoTime());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TransactionalEffects {

        @Bean
        TransactionalEffectWriter transactionalEffectWriter(DataSource dataSource) {
            return new TransactionalEffectWriter(new JdbcTemplate(dataSource));
        }
    }

    static class TransactionalEffectWriter {

        private final JdbcTemplate jdbc;

        TransactionalEffectWriter(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @QueueListener(queue = "tx-work", mode = "TRANSACTIONAL", concurrency = "4", batchSize = "20")
        void handle(Work work, JobContext job) {
            jdbc.update("INSERT INTO effect (job_id, n, attempt) VALUES (?, ?, ?)", job.id(), work.n(), job.attempt());
        }
    }

    static class LeaseRecorder {

        private final Map<Integer, AtomicInteger> handled;

        LeaseRecorder(Map<Integer, AtomicInteger> handled) {
            this.handled = handled;
        }

        @QueueListener(queue = "lease-work", concurrency = "4", batchSize = "20")
        void handle(Work work) {
            handled.computeIfAbsent(work.n(), (n) -> new AtomicInteger()).incrementAndGet();
        }
    }

    static class BatchRecorder {

        private final List<List<Work>> batches;

        BatchRecorder(List<List<Work>> batches) {
            this.batches = batches;
        }

        @QueueListener(queue = "batch-work", batchSize = "25", concurrency = "2")
        void handle(List<Work> batch) {
            batches.add(List.copyOf(batch));
        }
    }

    static class OrderRecorder {

        private final List<Integer> order;

        OrderRecorder(List<Integer> order) {
            this.order = order;
        }

        @QueueListener(queue = "ordered", concurrency = "1", batchSize = "1")
        void handle(Work work) {
            order.add(work.n());
        }
    }
}
