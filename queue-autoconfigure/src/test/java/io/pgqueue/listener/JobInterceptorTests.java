package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.model.JobState;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application's {@link JobInterceptor} beans run around every handler run, single and batch, nested in their
 * order, inside the run's log context; what they throw fails the attempt, and the job's headers reach them.
 */
class JobInterceptorTests {

    private static final TestDatabase database = TestPostgres.createDatabase(JobInterceptorTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    record Work(int n) {
    }

    /** What happened, in order, on every thread. */
    static final List<String> events = new CopyOnWriteArrayList<>();

    @Order(1)
    static class Outer implements JobInterceptor {

        @Override
        public Object intercept(JobRun run) throws Exception {
            events.add("outer>" + run.queue() + ":" + run.jobs().size() + (run.batch() ? ":batch" : "") + ":mdc="
                    + MDC.get("pgqueue.queue"));
            try {
                return run.proceed();
            }
            finally {
                events.add("outer<" + run.queue());
            }
        }
    }

    @Order(2)
    static class Inner implements JobInterceptor {

        @Override
        public Object intercept(JobRun run) throws Exception {
            String tenant = run.jobs().get(0).headers().getOrDefault("tenant", "none");
            events.add("inner>" + run.queue() + ":tenant=" + tenant);
            Object value = run.proceed();
            events.add("inner<" + run.queue());
            return value;
        }
    }

    static class Handlers {

        @QueueListener(queue = "single")
        void single(Work work) {
            events.add("handler:single:" + work.n());
        }

        @QueueListener(queue = "batched", batchSize = "3")
        void batched(List<Work> works) {
            events.add("handler:batched:" + works.size());
        }
    }

    @Test
    void interceptorsWrapSingleAndBatchRunsInTheirOrder() {
        events.clear();
        runner.withBean(Inner.class).withBean(Outer.class).withBean(Handlers.class)
            .withPropertyValues("pgqueue.listener.auto-startup=false")
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.send("single", new Work(7),
                        io.pgqueue.SendOptions.builder().header("tenant", "acme").build());
                template.sendBatch("batched", IntStream.range(0, 3).mapToObj(Work::new).toList());
                context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).getListenerContainers()
                    .forEach(QueueListenerContainer::start);
                await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 10);
            });
        assertThat(events.stream().filter((event) -> event.contains("single"))).containsExactly(
                "outer>single:1:mdc=single", "inner>single:tenant=acme", "handler:single:7", "inner<single",
                "outer<single");
        assertThat(events.stream().filter((event) -> event.contains("batched"))).containsExactly(
                "outer>batched:3:batch:mdc=batched", "inner>batched:tenant=none", "handler:batched:3", "inner<batched",
                "outer<batched");
    }

    /** Swallows whatever the handler throws: the kind of interceptor that must not hide an aborted transaction. */
    static class Swallowing implements JobInterceptor {

        @Override
        public Object intercept(JobRun run) {
            try {
                return run.proceed();
            }
            catch (Exception ignored) {
                return null;
            }
        }
    }

    static class CatchingSqlErrors {

        final org.springframework.jdbc.core.JdbcTemplate jdbc;

        CatchingSqlErrors(javax.sql.DataSource dataSource) {
            this.jdbc = new org.springframework.jdbc.core.JdbcTemplate(dataSource);
        }

        @QueueListener(queue = "aborting", mode = "TRANSACTIONAL", maxAttempts = "1")
        void handle(Work work) {
            try {
                jdbc.queryForObject("SELECT 1 / 0", Integer.class);
            }
            catch (org.springframework.dao.DataAccessException swallowed) {
                // the handler "handles" it; its transaction is aborted all the same
            }
        }
    }

    @Test
    void anInterceptorThatSwallowsErrorsCannotMakeAnAbortedTransactionASuccess() {
        runner.withBean(Swallowing.class).withBean(CatchingSqlErrors.class).run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("aborting", new Work(1));
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> admin.job(id).state() == JobState.DEAD);
            assertThat(admin.job(id).lastError()).contains("TransactionAbortedException");
        });
    }

    static class Refusing implements JobInterceptor {

        @Override
        public Object intercept(JobRun run) {
            throw new IllegalStateException("no tenant on job " + run.jobs().get(0).id());
        }
    }

    static class Counting {

        final List<Integer> handled = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "refused", maxAttempts = "2")
        void handle(Work work) {
            handled.add(work.n());
        }
    }

    @Test
    void whatAnInterceptorThrowsFailsTheAttemptAsTheHandlersWould() {
        Counting counting = new Counting();
        runner.withBean(Refusing.class).withBean(Counting.class, () -> counting).run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("refused", new Work(1));
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> admin.job(id).state() == JobState.DEAD);
            assertThat(admin.job(id).attempts()).isEqualTo(2);
            assertThat(admin.job(id).lastError()).contains("no tenant on job " + id);
            assertThat(counting.handled).as("the handler never ran").isEmpty();
        });
    }
}
