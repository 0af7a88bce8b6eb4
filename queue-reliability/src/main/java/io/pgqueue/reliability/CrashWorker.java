package io.pgqueue.reliability;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;

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

        private void record(JobContext job) {
            double latency = Duration.between(job.enqueuedAt(), Instant.now()).toNanos() / 1e6;
            jdbc.update("INSERT INTO effect (job_id, queue, pid, attempt, latency_ms) VALUES (?, ?, ?, ?, ?)", job.id(),
                    job.queue(), PID, job.attempt(), latency);
        }
    }
}
