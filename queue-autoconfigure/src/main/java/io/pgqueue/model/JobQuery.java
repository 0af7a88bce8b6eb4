package io.pgqueue.model;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Which jobs of a queue to list, newest first, one page at a time: {@code QueueAdmin.jobs(JobQuery)} returns
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

    private final boolean content;

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
        this.content = builder.content;
    }

    /**
     * Whether the page's jobs carry their payload, output and whole error; without, those are null (an error
     * keeps its first line), and a page of large jobs reads and holds only what a list shows.
     */
    public boolean content() {
        return content;
    }

    /** Jobs of this queue: by default every live state, 50 per page. */
    public static Builder queue(String queue) {
        return new Builder(QueueNames.validate(queue));
    }

    /**
     * A query from request parameters, as the Actuator endpoint and the dashboard take them: {@code state} (a
     * comma-separated list; default every live state), {@code groupKey}, {@code dedupKey}, {@code header}
     * ({@code name:value}), {@code enqueuedAfter} and {@code enqueuedBefore} (ISO-8601 instants),
     * {@code limit} and {@code before} (the previous page's cursor). Blank values and other keys are ignored.
     * @throws IllegalArgumentException naming the parameter that is not valid
     */
    public static JobQuery fromParameters(String queue, Map<String, String> parameters) {
        Builder query = queue(queue);
        String state = parameter(parameters, "state");
        if (state != null) {
            query.states(Arrays.stream(state.split(",")).map(String::trim).map(JobState::of).toArray(JobState[]::new));
        }
        String groupKey = parameter(parameters, "groupKey");
        if (groupKey != null) {
            query.groupKey(groupKey);
        }
        String dedupKey = parameter(parameters, "dedupKey");
        if (dedupKey != null) {
            query.dedupKey(dedupKey);
        }
        String header = parameter(parameters, "header");
        if (header != null) {
            int colon = header.indexOf(':');
            if (colon < 1) {
                throw new IllegalArgumentException("header must be name:value, was '" + header + "'");
            }
            query.header(header.substring(0, colon), header.substring(colon + 1));
        }
        String after = parameter(parameters, "enqueuedAfter");
        if (after != null) {
            query.enqueuedAfter(instant("enqueuedAfter", after));
        }
        String before = parameter(parameters, "enqueuedBefore");
        if (before != null) {
            query.enqueuedBefore(instant("enqueuedBefore", before));
        }
        String limit = parameter(parameters, "limit");
        if (limit != null) {
            query.limit(number("limit", limit).intValue());
        }
        JobQuery built = query.build();
        String cursor = parameter(parameters, "before");
        return (cursor != null) ? built.after(number("before", cursor)) : built;
    }

    /** The parameters {@link #fromParameters} reads, but the cursor. */
    public static final java.util.Set<String> FILTERS = java.util.Set.of("state", "groupKey", "dedupKey", "header",
            "enqueuedAfter", "enqueuedBefore", "limit");

    /**
     * A filter for an action on many jobs (retry or purge every dead job matching it): as
     * {@link #fromParameters}, but a key it does not know or a blank value is an error, never ignored, since
     * an ignored filter widens the action to every job of the queue.
     * @throws IllegalArgumentException naming the unknown key or the blank filter
     */
    public static JobQuery fromFilter(String queue, Map<String, String> filter) {
        for (Map.Entry<String, String> entry : filter.entrySet()) {
            if (!FILTERS.contains(entry.getKey())) {
                throw new IllegalArgumentException("Unknown filter '" + entry.getKey() + "': use "
                        + String.join(", ", new java.util.TreeSet<>(FILTERS)));
            }
            if (entry.getValue() == null || entry.getValue().isBlank()) {
                throw new IllegalArgumentException("Filter '" + entry.getKey() + "' is blank: leave it out, or give a value");
            }
        }
        return fromParameters(queue, filter);
    }

    private static @Nullable String parameter(Map<String, String> parameters, String name) {
        String value = parameters.get(name);
        return (value == null || value.isBlank()) ? null : value.trim();
    }

    private static Instant instant(String name, String value) {
        try {
            return Instant.parse(value);
        }
        catch (DateTimeParseException ex) {
            throw new IllegalArgumentException(name + " must be an ISO-8601 instant such as 2026-01-31T12:00:00Z, was '"
                    + value + "'");
        }
    }

    private static Long number(String name, String value) {
        try {
            return Long.valueOf(value);
        }
        catch (NumberFormatException ex) {
            throw new IllegalArgumentException(name + " must be a number, was '" + value + "'");
        }
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
        builder.content = content;
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

        private boolean content = true;

        /**
         * Leaves payloads, outputs and all but the first line of errors out of the page (they read as null):
         * for lists that do not show them.
         */
        public Builder withoutContent() {
            this.content = false;
            return this;
        }

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
