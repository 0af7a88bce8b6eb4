package io.pgqueue.internal.persistence;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import org.jspecify.annotations.Nullable;

/**
 * The reads of single jobs and pages of jobs, live ones from the job table and finished ones from the
 * history, for {@link JdbcJobAdmin}. A page is the newest jobs below a cursor id, read per state from
 * the index on (queue, state, id) of either table, so that it costs a few index ranges however many jobs the
 * queue holds; the filters a query uses pick one of a few generated statements, so that each is planned for
 * exactly the filters it has.
 */
final class JobLookups {

    private static final String LIVE_COLUMNS = """
            SELECT id, queue, state, %1$s AS payload, payload_type, %2$s, attempts, max_attempts,
                   priority, run_at, created_at, attempted_at, dead_at AS finished_at, %3$s AS last_error,
                   NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
                   timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
            FROM {schema}.job""";

    /**
     * The finished jobs' columns as a lookup reads them; the same shape as the live ones of the job table. Its
     * places: the payload, the headers, the error and the output ({@link #columns} fills them).
     */
    private static final String FINISHED_COLUMNS = """
            SELECT id, queue, state, %1$s AS payload, payload_type, %2$s, attempts, NULL::int AS max_attempts,
                   0::smallint AS priority, coalesce(run_at, created_at) AS run_at, created_at, attempted_at,
                   finished_at, %3$s AS last_error, %4$s AS output, NULL::smallint AS progress_percent,
                   NULL::text AS progress_message, false AS cancel_requested, group_key, dedup_key,
                   NULL::bigint AS timeout_ms, NULL::uuid AS locked_by, NULL::timestamptz AS lease_until, workflow_id,
                   batch_id, NULL::text AS fairness_key
            FROM {schema}.job_history""";

    /** Headers as two arrays ordered by name: no JSON parsing needed to read them. */
    private static final String HEADERS = """
            ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
                   ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values""";

    /** The optional filters of a page, each a condition on either table. */
    private enum Filter {

        GROUP_KEY("group_key = :group_key"), DEDUP_KEY("dedup_key = :dedup_key"),
        HEADER("headers @> jsonb_build_object(:header_name::text, :header_value::text)"),
        ENQUEUED_AFTER("created_at >= :enqueued_after::timestamptz"),
        ENQUEUED_BEFORE("created_at < :enqueued_before::timestamptz");

        private final String condition;

        Filter(String condition) {
            this.condition = condition;
        }

        boolean usedBy(JobQuery query) {
            return switch (this) {
                case GROUP_KEY -> query.groupKey() != null;
                case DEDUP_KEY -> query.dedupKey() != null;
                case HEADER -> query.headerName() != null;
                case ENQUEUED_AFTER -> query.enqueuedAfter() != null;
                case ENQUEUED_BEFORE -> query.enqueuedBefore() != null;
            };
        }
    }

    private final Schema schema;

    private final Sql byId;

    private final Sql deadIds;

    private final Sql deadJobs;

    private final Sql deadJobSummaries;

    /** The page statements by the bit sets of the states and filters they have. */
    private final Map<Integer, Sql> pages = new ConcurrentHashMap<>();

    JobLookups(Schema schema) {
        this.schema = schema;
        this.byId = schema.sql("lookup.by-id", "(" + columns(LIVE_COLUMNS, true) + " WHERE id = :id)\nUNION ALL\n("
                + columns(FINISHED_COLUMNS, true) + " WHERE id = :id)\nLIMIT 1");
        this.deadIds = schema.sql("maintenance.dead-ids",
                "SELECT id FROM {schema}.job WHERE queue = :queue AND state = 'dead' ORDER BY id");
        this.deadJobs = schema.sql("maintenance.dead-jobs", deadJobsStatement(true));
        this.deadJobSummaries = schema.sql("maintenance.dead-job-summaries", deadJobsStatement(false));
    }

    Sql byId() {
        return byId;
    }

    /** A queue's dead jobs' ids, in id order. */
    Sql deadIds() {
        return deadIds;
    }

    /** A page of a queue's dead jobs, newest first, with or without their content. */
    Sql deadJobs(boolean content) {
        return content ? deadJobs : deadJobSummaries;
    }

    /** A page of dead jobs; without content, payloads are not read and errors keep their first line. */
    private static String deadJobsStatement(boolean content) {
        return """
                SELECT id, queue, attempts, %s AS last_error, %s AS payload, payload_type, created_at
                FROM {schema}.job
                WHERE id = ANY(ARRAY(SELECT id FROM {schema}.job WHERE queue = :queue AND state = 'dead'
                                     ORDER BY id DESC OFFSET :offset LIMIT :limit))
                ORDER BY id DESC
                """.formatted(content ? "last_error" : "split_part(left(last_error, 1000), chr(10), 1)",
                        content ? "payload::text" : "NULL::text");
    }

    /** The statement for the query's states and filters, generated on first use. */
    Sql matching(JobQuery query) {
        int filters = 0;
        for (Filter filter : Filter.values()) {
            if (filter.usedBy(query)) {
                filters |= 1 << filter.ordinal();
            }
        }
        int states = 0;
        for (JobState state : query.states()) {
            states |= 1 << state.ordinal();
        }
        int content = query.content() ? 1 : 0;
        return pages.computeIfAbsent((((states << Filter.values().length) | filters) << 1) | content,
                (key) -> pageStatement(query.states(), (key >> 1) & ((1 << Filter.values().length) - 1),
                        query.content()));
    }

    /** The catalogue name of a page statement: its states, then its filters. */
    private static String pageName(Set<JobState> states, int filters, boolean content) {
        StringBuilder name = new StringBuilder("lookup.page:");
        name.append(String.join("-", JobState.all().stream().filter(states::contains).map(JobState::value).toList()));
        for (Filter filter : Filter.values()) {
            if ((filters & (1 << filter.ordinal())) != 0) {
                name.append('+').append(filter.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
            }
        }
        return name.append(content ? "+content" : "").toString();
    }

    /**
     * The columns of either table; without content, the large ones are left out (never read from TOAST) and an
     * error keeps its first line.
     */
    private static String columns(String template, boolean content) {
        // the template's places: payload, headers, error, output (the live table's has no output)
        return template.formatted(content ? "payload::text" : "NULL::text", HEADERS,
                content ? "last_error" : "split_part(left(last_error, 1000), chr(10), 1)",
                content ? "output::text" : "NULL::text");
    }

    /**
     * One index range per state, newest first, merged: each branch names its state as a literal (from
     * {@link JobState}, never from input), so that the planner sees how many rows that state has. With the
     * state as a parameter it took an empty state for a large one and walked the primary key backwards,
     * filtering, which reads the whole table when the state has no rows (measured on a million jobs: 520 ms
     * against 0.4 ms). Planned per execution, since the best index depends on the queue and filter values.
     */
    private Sql pageStatement(Set<JobState> states, int filters, boolean content) {
        StringBuilder base = new StringBuilder("queue = :queue");
        for (Filter filter : Filter.values()) {
            if ((filters & (1 << filter.ordinal())) != 0) {
                base.append(" AND ").append(filter.condition);
            }
        }
        boolean keyed = (filters & ((1 << Filter.GROUP_KEY.ordinal()) | (1 << Filter.DEDUP_KEY.ordinal()))) != 0;
        List<String> branches = new ArrayList<>();
        for (JobState state : JobState.all()) {
            if (states.contains(state)) {
                String columns = columns(state.isFinished() ? FINISHED_COLUMNS : LIVE_COLUMNS, content);
                String value = "'" + state.value() + "'";
                String conditions = this.conditions(state, filters, base);
                if (state.isFinished()) {
                    // the history is partitioned: with the state as a range and a row comparison, the planner
                    // estimates each partition's rows from "state < value" alone (none), and sorts every row of the
                    // queue instead of merging the partitions' index ranges (90 ms against 1 ms for a page of 50 at
                    // a million rows); with the state as an equality the estimate holds and the order is the index's
                    branches.add("(" + columns + "\n    WHERE " + conditions + " AND state = " + value
                            + " AND id < :before ORDER BY id DESC LIMIT :limit)");
                }
                else if (keyed) {
                    // a group or dedup key has an index of its own, on (queue, key, id): ordered by id, it is
                    // the shortest way to the key's newest jobs
                    branches.add("(" + columns + "\n    WHERE " + conditions + " AND state = " + value
                            + " AND id < :before ORDER BY id DESC LIMIT :limit)");
                }
                else {
                    // the state as a range and a row comparison, and the order by (state, id): only the index
                    // on (queue, state, id) yields that order, so the planner cannot walk the primary key
                    // backwards instead, filtering, which it took for cheaper whenever it assumed a queue's jobs
                    // spread over all ids (a queue older than the others: 950,000 rows read for its first page)
                    branches.add("(" + columns + "\n    WHERE " + conditions + " AND state >= " + value
                            + " AND (state, id) < (" + value + ", :before) ORDER BY state DESC, id DESC LIMIT :limit)");
                }
            }
        }
        return schema.sql(pageName(states, filters, content), "SELECT * FROM (\n" + String.join("\nUNION ALL\n", branches)
                + "\n) AS jobs ORDER BY id DESC LIMIT :limit").plannedPerExecution();
    }

    /**
     * The page's conditions on a state's table. The history is partitioned by finish time, and a job finishes
     * after it was enqueued: a lower bound on enqueue time is one on finish time too, which leaves out (prunes)
     * every partition that ended before it.
     */
    private String conditions(JobState state, int filters, CharSequence base) {
        if (state.isFinished() && (filters & (1 << Filter.ENQUEUED_AFTER.ordinal())) != 0) {
            return base + " AND finished_at >= :enqueued_after::timestamptz";
        }
        return base.toString();
    }

    void bind(Params params, JobQuery query) throws SQLException {
        params.text("queue", query.queue())
            .int8("before", query.before())
            .int4("limit", query.limit());
        if (query.groupKey() != null) {
            params.text("group_key", query.groupKey());
        }
        if (query.dedupKey() != null) {
            params.text("dedup_key", query.dedupKey());
        }
        if (query.headerName() != null) {
            params.text("header_name", query.headerName()).text("header_value", query.headerValue());
        }
        if (query.enqueuedAfter() != null) {
            params.timestamp("enqueued_after", query.enqueuedAfter());
        }
        if (query.enqueuedBefore() != null) {
            params.timestamp("enqueued_before", query.enqueuedBefore());
        }
    }

    static JobInfo read(ResultSet row) throws SQLException {
        Integer percent = row.getObject("progress_percent", Integer.class);
        return new JobInfo(row.getLong("id"), row.getString("queue"), JobState.of(row.getString("state")),
                row.getString("payload"), row.getString("payload_type"), headers(row), row.getInt("attempts"),
                row.getObject("max_attempts", Integer.class), row.getInt("priority"),
                instant(row.getTimestamp("run_at")), instant(row.getTimestamp("created_at")),
                instant(row.getTimestamp("attempted_at")), instant(row.getTimestamp("finished_at")),
                row.getString("last_error"), row.getString("output"),
                (percent != null) ? new JobInfo.Progress(percent, row.getString("progress_message")) : null,
                row.getBoolean("cancel_requested"), row.getString("group_key"), row.getString("dedup_key"),
                row.getObject("timeout_ms", Long.class), row.getObject("locked_by", UUID.class),
                instant(row.getTimestamp("lease_until")), row.getObject("workflow_id", Long.class),
                row.getObject("batch_id", Long.class), row.getString("fairness_key"));
    }

    private static Map<String, String> headers(ResultSet row) throws SQLException {
        Array names = row.getArray("header_names");
        Array values = row.getArray("header_values");
        Map<String, String> headers = new LinkedHashMap<>();
        if (names != null && values != null) {
            String[] keys = (String[]) names.getArray();
            String[] texts = (String[]) values.getArray();
            for (int i = 0; i < keys.length; i++) {
                headers.put(keys[i], texts[i]);
            }
        }
        return headers;
    }

    static @Nullable Instant instant(@Nullable Timestamp timestamp) {
        return (timestamp != null) ? timestamp.toInstant() : null;
    }
}
