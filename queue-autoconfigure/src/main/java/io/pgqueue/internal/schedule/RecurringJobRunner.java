package io.pgqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.internal.persistence.ScheduleRecord;
import io.pgqueue.internal.persistence.ScheduleRepository;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.MissedTickPolicy;
import io.pgqueue.model.ScheduleInfo;
import io.pgqueue.schedule.QueueScheduler;
import io.pgqueue.schedule.RecurringJob;
import io.pgqueue.support.PeriodicLifecycle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Fires recurring jobs. Every node declares the schedules it knows at start and then, every poll interval,
 * fires whatever is due in the schedule table: each tick advances the schedule with a compare-and-set and
 * enqueues its job in the same statement, so exactly one job is enqueued per tick however many nodes run,
 * without leader election. A tick's job wakes listeners like a sent one.
 */
public class RecurringJobRunner extends PeriodicLifecycle implements QueueScheduler {

    private static final Log logger = LogFactory.getLog(QueueScheduler.class);

    private final ScheduleRepository store;

    private final Wakeups wakeups;

    private final JobPayloadCodec codec;

    private final Duration pollInterval;

    private final Duration grace;

    private final List<RecurringJob> declared = new ArrayList<>();

    /** With queues in several databases: the scheduler of the database a queue lives in, when not this one. */
    private java.util.function.Function<String, @Nullable QueueScheduler> elsewhere = (queue) -> null;

    public RecurringJobRunner(ScheduleRepository store, Wakeups wakeups, JobPayloadCodec codec, Duration pollInterval,
            List<RecurringJob> jobs) {
        super("pgqueue-scheduler");
        this.store = store;
        this.wakeups = wakeups;
        this.codec = codec;
        this.pollInterval = pollInterval;
        this.grace = (pollInterval.multipliedBy(2).compareTo(Duration.ofSeconds(1)) > 0) ? pollInterval.multipliedBy(2)
                : Duration.ofSeconds(1);
        this.declared.addAll(jobs);
    }

    /**
     * With queues in several databases: where a recurring job of a queue that lives in another database is
     * registered (its ticks are enqueued there, in the transaction that records them).
     */
    public void setQueuePlacement(java.util.function.Function<String, @Nullable QueueScheduler> elsewhere) {
        this.elsewhere = elsewhere;
    }

    /** Declares a recurring job in the schedule table (keeping its next run if the definition is unchanged). */
    @Override
    public void register(RecurringJob job) {
        QueueScheduler other = elsewhere.apply(job.queue());
        if (other != null) {
            other.register(job);
            return;
        }
        ScheduleTicks ticks = ScheduleTicks.of(job);
        Object payload = job.payload();
        String json = (payload == null) ? null
                : (payload instanceof String text) ? text : codec.writePayload(job.queue(), payload);
        String type = (payload == null || payload instanceof String) ? null : payload.getClass().getName();
        store.declare(new ScheduleRecord(job.name(), job.queue(), job.cron(),
                (job.fixedRate() != null) ? job.fixedRate().toMillis() : null, job.zone().getId(), json, type,
                job.missed().name(), ticks.next(store.now()), null, false, false));
    }

    /** Every recurring job the cluster knows, with its next and last tick. */
    public List<ScheduleInfo> schedules() {
        return store.all().stream().map(ScheduleRecord::info).toList();
    }

    /**
     * Fires every due schedule once; returns how many jobs this node enqueued. A schedule that cannot be
     * fired (e.g. a row with an invalid cron expression) is logged and skipped; it holds back no other.
     */
    public int fireDue() {
        int enqueued = 0;
        for (ScheduleRecord schedule : store.due()) {
            try {
                enqueued += fire(schedule) ? 1 : 0;
            }
            catch (RuntimeException ex) {
                logger.warn("Recurring job '" + schedule.name() + "' could not be fired and is skipped: "
                        + ex.getMessage());
            }
        }
        return enqueued;
    }

    /** Fires one due schedule; returns whether this node enqueued its tick's job. */
    private boolean fire(ScheduleRecord schedule) {
        Instant now = store.now();
        ScheduleTicks ticks = ScheduleTicks.of(schedule);
        Instant tick = ticks.latest(schedule.nextRunAt(), now);
        boolean missedTicks = !tick.equals(schedule.nextRunAt());
        boolean enqueue = MissedTickPolicy.valueOf(schedule.missed()) == MissedTickPolicy.FIRE_ONCE
                || Duration.between(tick, now).compareTo(grace) <= 0;
        Instant next = ticks.next(now);
        boolean fired = enqueue
                ? wakeups.enqueueIf(schedule.queue(), (notify) -> store.fire(schedule, tick, next, true, notify))
                : store.fire(schedule, tick, next, false, false);
        if (fired) {
            if (missedTicks) {
                logger.info("Recurring job '" + schedule.name() + "' missed ticks from " + schedule.nextRunAt()
                        + (enqueue ? "; enqueued one job for " + tick : "; skipped them"));
            }
            return enqueue;
        }
        return false;
    }

    @Override
    protected void schedule() {
        declared.forEach(this::register);
        every(pollInterval, Duration.ZERO, "recurring jobs", this::fireDue);
    }
}
