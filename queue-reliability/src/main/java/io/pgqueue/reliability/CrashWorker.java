package io.pgqueue.reliability;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import io.pgqueue.workflow.WorkflowContext;
import io.pgqueue.workflow.WorkflowNode;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A worker process for fault injection: a Spring Boot application using the starter whose listeners record
 * every effect in the {@code effect} table (job, queue, process, attempt, latency). Started as a separate
 * JVM by the crash test and the soak, and killed with SIGKILL there.
 */
@SpringBootApplication
public class CrashWorker {

    /** Simulated work per job, so that jobs are in flight when a worker is killed. */
    static final Duration WORK = Duration.ofMillis(5);

    public static void main(String[] args) {
        SpringApplication.run(CrashWorker.class, args);
    }

    @Bean
    EffectRecorder effectRecorder(JdbcTemplate jdbc) {
        return new EffectRecorder(jdbc);
    }

    /** SQL of the effect table, created by whoever starts the workers. */
    public static final String EFFECT_TABLE = """
            CREATE TABLE IF NOT EXISTS effect (
                job_id     bigint      NOT NULL,
                queue      text        NOT NULL,
                pid        bigint      NOT NULL,
                attempt    integer     NOT NULL,
                latency_ms double precision NOT NULL,
                at         timestamptz NOT NULL DEFAULT now()
            )
            """;

    /** SQL of the table where workflow nodes record their runs, created by whoever starts the workers. */
    public static final String NODE_RUN_TABLE = """
            CREATE TABLE IF NOT EXISTS node_run (
                job_id       bigint      NOT NULL,
                workflow_id  bigint      NOT NULL,
                node         text        NOT NULL,
                queue        text        NOT NULL,
                pid          bigint      NOT NULL,
                attempt      integer     NOT NULL,
                parents      integer     NOT NULL,
                parents_done integer     NOT NULL,
                at           timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """;

    /**
     * SQL of the table where batch callbacks record their runs (with how many of their batch's members were still
     * unfinished, dead ones aside, as the run saw them), created by whoever starts the workers.
     */
    public static final String CALLBACK_RUN_TABLE = """
            CREATE TABLE IF NOT EXISTS callback_run (
                job_id     bigint      NOT NULL,
                batch_id   bigint      NOT NULL,
                event      text        NOT NULL,
                pid        bigint      NOT NULL,
                unfinished integer     NOT NULL,
                at         timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """;

    /**
     * SQL of the tables durable jobs record in: every run of a step's body ({@code step_run}, outside its checkpoint:
     * an external effect), the writes of its transactional steps ({@code tx_effect}, with their checkpoint) and the
     * end of each job with the tokens its steps returned ({@code durable_done}).
     */
    public static final String DURABLE_TABLES = """
            CREATE TABLE IF NOT EXISTS step_run (
                job_id bigint      NOT NULL,
                step   text        NOT NULL,
                token  text        NOT NULL,
                pid    bigint      NOT NULL,
                at     timestamptz NOT NULL DEFAULT clock_timestamp()
            );
            CREATE TABLE IF NOT EXISTS tx_effect (
                job_id bigint NOT NULL,
                step   text   NOT NULL
            );
            CREATE TABLE IF NOT EXISTS durable_done (
                job_id bigint NOT NULL,
                queue  text   NOT NULL,
                tokens text[] NOT NULL,
                pid    bigint NOT NULL
            );
            """;

    /** SQL of the table compensations record their runs in (in their transaction: once each). */
    public static final String UNDO_RUN_TABLE = """
            CREATE TABLE IF NOT EXISTS undo_run (
                what text        NOT NULL,
                pid  bigint      NOT NULL,
                at   timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """;

    /**
     * A durable job's work: five steps (the third transactional), a short sleep after the second.
     *
     * @param n sequence number
     */
    public record DurableWork(int n) {
    }

    /**
     * A batch member's work.
     *
     * @param poison whether it fails every attempt (and ends dead)
     */
    public record MemberWork(boolean poison) {
    }

    /**
     * A workflow node's work: a splitter adds {@code fanOut} chunks and a merge after them.
     *
     * @param fanOut chunks a splitter adds, 0 for other nodes
     */
    public record NodeWork(int fanOut) {
    }

    /**
     * A unit of work.
     *
     * @param n sequence number
     */
    public record Work(int n) {
    }

    static class EffectRecorder {

        private static final long PID = ProcessHandle.current().pid();

        private final JdbcTemplate jdbc;

        EffectRecorder(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** The effect commits with the acknowledgement: exactly once. */
        @QueueListener(queue = "crash-tx", mode = "TRANSACTIONAL", concurrency = "4", batchSize = "5")
        void transactional(Work work, JobContext job) {
            record(job);
            LockSupport.parkNanos(WORK.toNanos());
        }

        /** The effect happens before the acknowledgement: at least once. */
        @QueueListener(queue = "crash-lease", concurrency = "8", batchSize = "8")
        void lease(Work work, JobContext job) {
            LockSupport.parkNanos(WORK.toNanos());
            record(job);
        }

        /** A batch member acknowledged after its run. */
        @QueueListener(queue = "b-crash-lease", concurrency = "6", batchSize = "4")
        void leaseMember(MemberWork work) {
            LockSupport.parkNanos(WORK.toNanos());
            member(work);
        }

        /** A batch member whose run commits with its acknowledgement. */
        @QueueListener(queue = "b-crash-tx", mode = "TRANSACTIONAL", concurrency = "3")
        void transactionalMember(MemberWork work) {
            member(work);
            LockSupport.parkNanos(WORK.toNanos());
        }

        private static void member(MemberWork work) {
            if (work.poison()) {
                throw new IllegalStateException("poison member");
            }
        }

        /** A batch callback, recorded in its own transaction: exactly once per callback job. */
        @QueueListener(queue = "b-crash-done", mode = "TRANSACTIONAL", concurrency = "2")
        void callback(io.pgqueue.batch.BatchEvent event, JobContext job) {
            Integer unfinished = jdbc.queryForObject(
                    "SELECT count(*) FROM pgqueue.job WHERE batch_id = ? AND state <> 'dead'", Integer.class,
                    event.batchId());
            jdbc.update("INSERT INTO callback_run (job_id, batch_id, event, pid, unfinished) VALUES (?, ?, ?, ?, ?)",
                    job.id(), event.batchId(), event.event().value(), PID, unfinished);
        }

        /** A workflow node whose run commits with its acknowledgement: exactly once. */
        @QueueListener(queue = "wf-crash-tx", mode = "TRANSACTIONAL", concurrency = "3")
        void transactionalNode(NodeWork work, JobContext job) {
            node(work, job);
            LockSupport.parkNanos(WORK.toNanos());
        }

        /** A workflow node acknowledged after its run: at least once. */
        @QueueListener(queue = "wf-crash-lease", concurrency = "6", batchSize = "4")
        void leaseNode(NodeWork work, JobContext job) {
            LockSupport.parkNanos(WORK.toNanos());
            node(work, job);
        }

        /**
         * Records the run with how many of the node's parents had completed as this run saw it (committed, so
         * visible): a child that started before its parents committed would see fewer.
         */
        private void node(NodeWork work, JobContext job) {
            WorkflowContext workflow = java.util.Objects.requireNonNull(job.workflow());
            List<String> parents = workflow.parents();
            Integer done = jdbc.queryForObject("SELECT count(*) FROM pgqueue.workflow_node WHERE workflow_id = ? "
                    + "AND name = ANY(?) AND state = 'completed'", Integer.class, workflow.id(), parents.toArray(String[]::new));
            jdbc.update("INSERT INTO node_run (job_id, workflow_id, node, queue, pid, attempt, parents, parents_done) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", job.id(), workflow.id(), workflow.node(), job.queue(), PID,
                    job.attempt(), parents.size(), done);
            if (work.fanOut() > 0) {
                List<WorkflowNode> chunks = new ArrayList<>();
                WorkflowNode merge = WorkflowNode.of(workflow.node() + "-merge", "wf-crash-tx", new NodeWork(0));
                for (int i = 0; i < work.fanOut(); i++) {
                    String name = workflow.node() + "-chunk-" + i;
                    chunks.add(WorkflowNode.of(name, (i % 2 == 0) ? "wf-crash-lease" : "wf-crash-tx", new NodeWork(0))
                        .after(workflow.node()));
                    merge = merge.after(name);
                }
                chunks.add(merge);
                workflow.add(chunks);
            }
        }

        /** A step of a saga that completes. */
        @QueueListener(queue = "saga-crash-do", concurrency = "6")
        void sagaStep(String node) {
            LockSupport.parkNanos(WORK.toNanos());
        }

        /** The step of a saga that fails for good (sent with one attempt). */
        @QueueListener(queue = "saga-crash-fail", concurrency = "2")
        void sagaFail(String node) {
            throw new IllegalStateException("the saga's last step fails: " + node);
        }

        /** A compensation, recorded in its transaction: exactly once. */
        @QueueListener(queue = "saga-crash-undo", mode = "TRANSACTIONAL", concurrency = "4")
        void sagaUndo(String what) {
            LockSupport.parkNanos(WORK.toNanos());
            jdbc.update("INSERT INTO undo_run (what, pid) VALUES (?, ?)", what, PID);
        }

        /** A durable job whose effects are recorded outside its checkpoints: killed at any point. */
        @QueueListener(queue = "durable-lease", concurrency = "6")
        void durableLease(DurableWork work, JobContext job) {
            durable(job);
        }

        /** The same in TRANSACTIONAL mode: steps checkpoint on their own, transactional steps with the job. */
        @QueueListener(queue = "durable-tx", mode = "TRANSACTIONAL", concurrency = "4")
        void durableTransactional(DurableWork work, JobContext job) {
            durable(job);
        }

        private void durable(JobContext job) {
            List<String> tokens = new ArrayList<>();
            for (int step = 1; step <= 5; step++) {
                String name = "s" + step;
                if (step == 3) {
                    tokens.add(job.transactionalStep(name, String.class, () -> {
                        jdbc.update("INSERT INTO tx_effect (job_id, step) VALUES (?, ?)", job.id(), name);
                        LockSupport.parkNanos(WORK.toNanos());
                        return "tx";
                    }));
                }
                else {
                    tokens.add(job.step(name, String.class, () -> {
                        String token = java.util.UUID.randomUUID().toString();
                        jdbc.update("INSERT INTO step_run (job_id, step, token, pid) VALUES (?, ?, ?, ?)", job.id(),
                                name, token, PID);
                        LockSupport.parkNanos(WORK.toNanos());
                        return token;
                    }));
                }
                if (step == 2) {
                    job.sleep(Duration.ofMillis(100));
                }
            }
            jdbc.update("INSERT INTO durable_done (job_id, queue, tokens, pid) VALUES (?, ?, ?, ?)", job.id(),
                    job.queue(), tokens.toArray(String[]::new), PID);
        }

        private void record(JobContext job) {
            double latency = Duration.between(job.enqueuedAt(), Instant.now()).toNanos() / 1e6;
            jdbc.update("INSERT INTO effect (job_id, queue, pid, attempt, latency_ms) VALUES (?, ?, ?, ?, ?)", job.id(),
                    job.queue(), PID, job.attempt(), latency);
        }
    }
}
