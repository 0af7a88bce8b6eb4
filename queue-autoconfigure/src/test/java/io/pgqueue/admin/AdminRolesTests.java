package io.pgqueue.admin;

import java.util.List;

import io.pgqueue.QueueTemplate;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link QueueAdmin} by role: a class that needs one role injects it and gets the application's one admin, and
 * what an {@link AdminAction} does is the same whichever front door asks for it.
 */
class AdminRolesTests {

    private static final TestDatabase database = TestPostgres.createDatabase(AdminRolesTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.maintenance.enabled=false");

    private final Jobs jobs = new Jobs(database.dataSource());

    @Test
    void eachRoleIsTheOneAdminBean() {
        runner.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            for (Class<?> role : List.of(JobsAdmin.class, QueuesAdmin.class, SchedulesAdmin.class,
                    WorkflowsAdmin.class, BatchesAdmin.class, FairnessAdmin.class, ClusterAdmin.class)) {
                assertThat(context.getBean(role)).as(role.getSimpleName()).isSameAs(admin);
            }
            context.getBean(QueuesAdmin.class).pause("roles");
            assertThat(admin.isPaused("roles")).isTrue();
            context.getBean(QueuesAdmin.class).resume("roles");
            assertThat(context.getBean(ClusterAdmin.class).schemaVersion()).isNotNull();
            // gauges read every state, zero where there is none
            assertThat(context.getBean(WorkflowsAdmin.class).workflowsByState())
                .containsOnlyKeys(io.pgqueue.model.WorkflowState.values())
                .allSatisfy((state, count) -> assertThat(count).isZero());
            assertThat(context.getBean(BatchesAdmin.class).batchesByState())
                .containsOnlyKeys(io.pgqueue.model.BatchState.values())
                .allSatisfy((state, count) -> assertThat(count).isZero());
        });
    }

    @Test
    void actionsDoWhatTheirVerbSaysOnTheTargetTheyName() {
        runner.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            QueueTemplate template = context.getBean(QueueTemplate.class);
            AdminAction.of(AdminAction.Target.QUEUE, "pause").onQueue(admin, "acted");
            assertThat(admin.isPaused("acted")).isTrue();
            AdminAction.of(AdminAction.Target.QUEUE, "resume").onQueue(admin, "acted");
            assertThat(admin.isPaused("acted")).isFalse();

            long ready = template.send("acted", "one");
            AdminAction.Outcome cancelled = AdminAction.CANCEL.onJob(admin, "acted", ready);
            assertThat(cancelled).isEqualTo(new AdminAction.Outcome(1, "cancelled"));
            assertThat(jobs.count("acted")).as("a cancelled job leaves the job table").isZero();

            long dead = jobs.jdbc().queryForObject("INSERT INTO pgqueue.job (queue, state, payload, attempts, dead_at, "
                    + "last_error) VALUES ('acted', 'dead', '{}'::jsonb, 1, now(), 'x') RETURNING id", Long.class);
            assertThat(AdminAction.RETRY.onJob(admin, "elsewhere", dead).affected()).as("another queue's job").isZero();
            assertThatIllegalArgumentException().isThrownBy(() -> AdminAction.CANCEL.onJob(admin, "elsewhere", dead))
                .withMessage("Job " + dead + " is not in queue 'elsewhere'");
            assertThat(AdminAction.of(AdminAction.Target.QUEUE, "retry-dead").onJob(admin, "acted", dead).affected())
                .isEqualTo(1);
            assertThat(AdminAction.RETRY.onJob(admin, "acted", dead).affected()).as("no longer dead").isZero();
        });
    }

    @Test
    void anActionOnAnotherTargetIsRefusedNamingBoth() {
        runner.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThatIllegalStateException().isThrownBy(() -> AdminAction.PAUSE.onSchedule(admin, "nightly", null, null))
                .withMessage("'pause' is an action on a queue, not on a schedule");
            assertThatIllegalStateException().isThrownBy(() -> AdminAction.TRIGGER.onQueue(admin, "acted"))
                .withMessage("'trigger' is an action on a schedule, not on a queue");
            assertThatIllegalArgumentException()
                .isThrownBy(() -> AdminAction.RESCHEDULE.onSchedule(admin, "nightly", null, null))
                .withMessage("reschedule needs exactly one of cron and fixedRate");
            assertThatIllegalArgumentException().isThrownBy(() -> AdminAction.WEIGHT.onKey(admin, "fair", "k", null))
                .withMessage("weight needs a weight: a number above zero");
        });
    }
}
