package io.pgqueue.admin;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.pgqueue.JobState;
import io.pgqueue.QueueNames;
import org.jspecify.annotations.Nullable;

/**
 * Which jobs of a queue to list, newest first, one page at a time: {@link QueueAdmin#jobs(JobQuery)} returns
 * a cursor for the next page, which stays correct while jobs come and go (keyset paging, no offset).
 * Immutable; build with {@link #queue(String)}.
 */
public final class JobQuery {

    /** Most jobs on one page. */
    public static final int MAX_LIMIT = 500;

    private final String queue;

    private final Set<JobState> states;

    private final @Nullable String groupKey;

    private final @Nullable String dedupKey;

    private final @Nullable String headerName;

    private final @Nullable String headerValue;

    private final @Nullable Instant enqueuedAfter;

    private final @Nullable Instant enqueuedBefore;

    private final int limit;

    private final long before;

    private JobQuery(Builder builder) {
        this.queue = builder.queue;
        this.states = Set.copyOf(builder.states);
        this.groupKey = builder.groupKey;
        this.dedupKey = builder.dedupKey;
        this.headerName = builder.headerName;
        this.headerValue = builder.headerValue;
        this.enqueuedAfter = builder.enqueuedAfter;
        this.enqueuedBefore = builder.enqueuedBefore;
        this.limit = builder.limit;
        this.before = builder.before;
    }

    /** Jobs of this queue: by default every live state, 50 per page. */
    public static Builder queue(String queue) {
        return new Builder(QueueNames.validate(queue));
    }

    public String queue() {
        return queue;
    }

    public Set<JobState> states() {
        return states;
    }

    public List<JobState> liveStates() {
        return JobState.live().stream().filter(states::contains).toList();
    }

    public List<JobState> finishedStates() {
        return JobState.all().stream().filter((state) -> state.isFinished() && states.contains(state)).toList();
    }

    public @Nullable String groupKey() {
        return groupKey;
    }

    public @Nullable String dedupKey() {
        return dedupKey;
    }

    public @Nullable String headerName() {
        return headerName;
    }

    public @Nullable String headerValue() {
        return headerValue;
    }

    public @Nullable Instant enqueuedAfter() {
        return enqueuedAfter;
    }

    public @Nullable Instant enqueuedBefore() {
        return enqueuedBefore;
    }

    public int limit() {
        return limit;
    }

    /** Only jobs with a smaller id than this (the cursor of the previous page), or Long.MAX_VALUE. */
    public long before() {
        return before;
    }

    /** The same query for the page after the given cursor. */
    public JobQuery after(long cursor) {
        Builder builder = toBuilder();
        builder.before = cursor;
        return builder.build();
    }

    public Builder toBuilder() {
        Builder builder = new Builder(queue);
        builder.states = EnumSet.copyOf(states);
        builder.groupKey = groupKey;
        builder.dedupKey = dedupKey;
        builder.headerName = headerName;
        builder.headerValue = headerValue;
        builder.enqueuedAfter = enqueuedAfter;
        builder.enqueuedBefore = enqueuedBefore;
        builder.limit = limit;
        builder.before = before;
        return builder;
    }

    @Override
    public String toString() {
        return "JobQuery[queue=" + queue + ", states=" + states + ", groupKey=" + groupKey + ", dedupKey=" + dedupKey
                + ", header=" + headerName + ", enqueued=" + enqueuedAfter + ".." + enqueuedBefore + ", limit=" + limit
                + ", before=" + before + "]";
    }

    /** Builder for {@link JobQuery}. */
    public static final class Builder {

        private final String queue;

        private EnumSet<JobState> states = EnumSet.copyOf(JobState.live());

        private @Nullable String groupKey;

        private @Nullable String dedupKey;

        private @Nullable String headerName;

        private @Nullable String headerValue;

        private @Nullable Instant enqueuedAfter;

        private @Nullable Instant enqueuedBefore;

        private int limit = 50;

        private long before = Long.MAX_VALUE;

        private Builder(String queue) {
            this.queue = queue;
        }

        /** Jobs in any of these states (finished ones come from the history, when history is on). */
        public Builder states(JobState... states) {
            if (states.length == 0) {
                throw new IllegalArgumentException("states must name at least one state");
            }
            this.states = EnumSet.copyOf(List.of(states));
            return this;
        }

        public Builder groupKey(String groupKey) {
            this.groupKey = Objects.requireNonNull(groupKey, "groupKey");
            return this;
        }

        public Builder dedupKey(String dedupKey) {
            this.dedupKey = Objects.requireNonNull(dedupKey, "dedupKey");
            return this;
        }

        /** Jobs sent with this header value. */
        public Builder header(String name, String value) {
            this.headerName = Objects.requireNonNull(name, "header name");
            this.headerValue = Objects.requireNonNull(value, "header value");
            return this;
        }

        /** Jobs sent at or after this instant. */
        public Builder enqueuedAfter(Instant instant) {
            this.enqueuedAfter = Objects.requireNonNull(instant, "instant");
            return this;
        }

        /** Jobs sent before this instant. */
        public Builder enqueuedBefore(Instant instant) {
            this.enqueuedBefore = Objects.requireNonNull(instant, "instant");
            return this;
        }

        /** Jobs per page, 1 to {@value JobQuery#MAX_LIMIT}; default 50. */
        public Builder limit(int limit) {
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ": " + limit);
            }
            this.limit = limit;
            return this;
        }

        public JobQuery build() {
            if (enqueuedAfter != null && enqueuedBefore != null && !enqueuedAfter.isBefore(enqueuedBefore)) {
                throw new IllegalArgumentException("enqueuedAfter (" + enqueuedAfter + ") must be before enqueuedBefore ("
                        + enqueuedBefore + ")");
            }
            return new JobQuery(this);
        }
    }
}
