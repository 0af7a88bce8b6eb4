package io.pgqueue.schedule;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;

import io.pgqueue.model.MissedTickPolicy;
import io.pgqueue.model.QueueNames;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

/**
 * A job enqueued on a schedule: every tick of a cron expression or a fixed rate, exactly once per tick
 * across the cluster. Declare one in {@code pgqueue.schedules.<name>.*}, as a bean of this type, or with
 * {@link QueueScheduler#register(RecurringJob)}.
 */
public final class RecurringJob {

    private final String name;

    private final String queue;

    private final @Nullable String cron;

    private final @Nullable Duration fixedRate;

    private final ZoneId zone;

    private final @Nullable Object payload;

    private final MissedTickPolicy missed;

    private RecurringJob(Builder builder) {
        if (builder.name == null || builder.name.isBlank()) {
            throw new IllegalArgumentException("A recurring job needs a name");
        }
        this.name = builder.name;
        if (builder.queue == null) {
            throw new IllegalArgumentException("Recurring job '" + name + "' needs a queue");
        }
        this.queue = QueueNames.validate(builder.queue);
        if ((builder.cron == null) == (builder.fixedRate == null)) {
            throw new IllegalArgumentException("Recurring job '" + name + "' needs exactly one of cron and fixed-rate");
        }
        if (builder.cron != null) {
            try {
                CronExpression.parse(builder.cron);
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("Recurring job '" + name + "' has an invalid cron expression '"
                        + builder.cron + "': " + ex.getMessage(), ex);
            }
        }
        if (builder.fixedRate != null && builder.fixedRate.toMillis() < 1) {
            throw new IllegalArgumentException("Recurring job '" + name + "' needs a fixed rate of at least 1 ms");
        }
        this.cron = builder.cron;
        this.fixedRate = builder.fixedRate;
        this.zone = builder.zone;
        this.payload = builder.payload;
        this.missed = builder.missed;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    public String queue() {
        return queue;
    }

    public @Nullable String cron() {
        return cron;
    }

    public @Nullable Duration fixedRate() {
        return fixedRate;
    }

    public ZoneId zone() {
        return zone;
    }

    public @Nullable Object payload() {
        return payload;
    }

    public MissedTickPolicy missed() {
        return missed;
    }

    /** Builder for {@link RecurringJob}. */
    public static final class Builder {

        private final String name;

        private @Nullable String queue;

        private @Nullable String cron;

        private @Nullable Duration fixedRate;

        private ZoneId zone = ZoneId.of("UTC");

        private @Nullable Object payload;

        private MissedTickPolicy missed = MissedTickPolicy.FIRE_ONCE;

        private Builder(String name) {
            this.name = name;
        }

        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        /** Spring's six-field cron expression (second minute hour day month weekday), e.g. "0 0 6 * * *". */
        public Builder cron(String cron) {
            this.cron = cron;
            return this;
        }

        public Builder fixedRate(Duration fixedRate) {
            this.fixedRate = fixedRate;
            return this;
        }

        public Builder zone(ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        /** Payload of every job, written as JSON; a String is taken as JSON text. */
        public Builder payload(@Nullable Object payload) {
            this.payload = payload;
            return this;
        }

        public Builder missed(MissedTickPolicy missed) {
            this.missed = Objects.requireNonNull(missed, "missed");
            return this;
        }

        public RecurringJob build() {
            return new RecurringJob(this);
        }
    }
}
