package io.pgqueue.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.error.FailureDecision;
import org.jspecify.annotations.Nullable;

/**
 * Counts what this node's listeners do: {@code pgqueue.jobs.completed/failed/retried/dead{queue}},
 * {@code pgqueue.job.duration{queue,outcome}} (handler time) and {@code pgqueue.job.latency{queue}} (from
 * the moment a job became due to the moment it was claimed). With handler runs observed
 * ({@code pgqueue.listener.observation-enabled}), the observation {@code pgqueue.process} times each run and
 * {@code pgqueue.job.duration} is not recorded, so that no run is timed twice (as Spring AMQP does).
 */
public class MicrometerJobObserver implements JobObserver {

    private final MeterRegistry registry;

    private final Map<String, QueueMeters> meters = new ConcurrentHashMap<>();

    private final boolean timeHandlers;

    /** A queue's tags: its name, and its database's when there are several. */
    private Function<String, Tags> queueTags = (queue) -> Tags.of("queue", queue);

    public MicrometerJobObserver(MeterRegistry registry) {
        this(registry, true);
    }

    /**
     * @param registry where the meters go
     * @param timeHandlers whether to record {@code pgqueue.job.duration}: not when an observation times the runs
     */
    public MicrometerJobObserver(MeterRegistry registry, boolean timeHandlers) {
        this.registry = registry;
        this.timeHandlers = timeHandlers;
    }

    /**
     * With several databases ({@code pgqueue.databases}): each queue's meters also carry a {@code database} tag,
     * the name this function gives the queue. Set before the first job is observed.
     */
    public void setDatabaseOf(Function<String, String> databaseOf) {
        this.queueTags = (queue) -> Tags.of("queue", queue, "database", databaseOf.apply(queue));
    }

    @Override
    public void started(JobContext job) {
        Duration latency = Duration.between(job.dueAt(), job.claimedAt());
        meters(job.queue()).latency.record(latency.isNegative() ? Duration.ZERO : latency);
    }

    @Override
    public void succeeded(JobContext job, Duration duration) {
        QueueMeters queue = meters(job.queue());
        queue.completed.increment();
        if (queue.succeededTime != null) {
            queue.succeededTime.record(duration);
        }
    }

    @Override
    public void failed(JobContext job, Duration duration, Throwable error, FailureDecision decision) {
        QueueMeters queue = meters(job.queue());
        queue.failed.increment();
        (decision.isDead() ? queue.dead : queue.retried).increment();
        if (queue.failedTime != null) {
            queue.failedTime.record(duration);
        }
    }

    @Override
    public void snoozed(JobContext job, Duration duration, Duration delay) {
        meters(job.queue()).snoozed.increment();
    }

    @Override
    public void cancelled(JobContext job, Duration duration) {
        meters(job.queue()).cancelled.increment();
    }

    @Override
    public void stepCompleted(JobContext job, String step, Duration duration) {
        meters(job.queue()).steps.record(duration);
    }

    private QueueMeters meters(String queue) {
        return meters.computeIfAbsent(queue, (name) -> new QueueMeters(registry, queueTags.apply(name), timeHandlers));
    }

    private static final class QueueMeters {

        final Counter completed;

        final Counter failed;

        final Counter retried;

        final Counter dead;

        final Counter snoozed;

        final Counter cancelled;

        final @Nullable Timer succeededTime;

        final @Nullable Timer failedTime;

        final Timer latency;

        /** Durable steps that ran (not those replayed), by queue only: step names are the application's, unbounded. */
        final Timer steps;

        QueueMeters(MeterRegistry registry, Tags queue, boolean timeHandlers) {
            completed = counter(registry, "pgqueue.jobs.completed", "Jobs whose handler succeeded", queue);
            failed = counter(registry, "pgqueue.jobs.failed", "Failed attempts", queue);
            retried = counter(registry, "pgqueue.jobs.retried", "Failed attempts that will be retried", queue);
            dead = counter(registry, "pgqueue.jobs.dead", "Jobs sent dead by this node's listeners", queue);
            snoozed = counter(registry, "pgqueue.jobs.snoozed", "Attempts put off by their handler, uncounted", queue);
            cancelled = counter(registry, "pgqueue.jobs.cancelled", "Running jobs stopped by a cancellation", queue);
            succeededTime = timeHandlers ? duration(registry, queue, "success") : null;
            failedTime = timeHandlers ? duration(registry, queue, "failure") : null;
            steps = Timer.builder("pgqueue.job.step.duration")
                .description("Time a durable step took to run and be recorded (steps replayed from their stored "
                        + "result are not timed)")
                .tags(queue)
                .register(registry);
            latency = Timer.builder("pgqueue.job.latency")
                .description("Time from a job becoming due to its claim")
                .tags(queue)
                .publishPercentileHistogram()
                .register(registry);
        }

        private static Counter counter(MeterRegistry registry, String name, String description, Tags queue) {
            return Counter.builder(name).description(description).baseUnit("jobs").tags(queue).register(registry);
        }

        private static Timer duration(MeterRegistry registry, Tags queue, String outcome) {
            return Timer.builder("pgqueue.job.duration")
                .description("Handler time per job")
                .tags(queue.and("outcome", outcome))
                .register(registry);
        }
    }
}
