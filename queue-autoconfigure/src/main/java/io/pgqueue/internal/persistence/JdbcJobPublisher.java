package io.pgqueue.internal.persistence;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The job table's {@link JobPublishPort}: inserts jobs with the statements {@link InsertStatements} composed.
 */
final class JdbcJobPublisher implements JobPublishPort {

    private final Jdbc jdbc;

    private final Schema schema;

    private final InsertStatements inserts;

    private final Sql findLiveByDedupKey;

    JdbcJobPublisher(Jdbc jdbc, Schema schema, InsertStatements inserts, Sql findLiveByDedupKey) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.inserts = inserts;
        this.findLiveByDedupKey = findLiveByDedupKey;
    }

    @Override
    public List<Long> enqueue(String queue, List<NewJob> jobs, boolean notify) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        InsertStatements.Variant variant = InsertStatements.Variant.of(jobs, notify, false);
        return jdbc.query(inserts.insert(variant), (params) -> {
            variant.shape().bind(params, jobs);
            params.text("queue", queue);
            if (notify) {
                params.text("channel", schema.notifyChannel());
            }
        }, (row) -> row.getLong(1));
    }

    @Override
    public List<Long> enqueueToBatch(String queue, long batchId, List<NewJob> jobs, boolean notify) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        InsertStatements.Variant variant = InsertStatements.Variant.of(jobs, notify, true);
        return jdbc.query(inserts.insert(variant), (params) -> {
            variant.shape().bind(params, jobs);
            params.text("queue", queue).int8("batch_id", batchId);
            if (notify) {
                params.text("channel", schema.notifyChannel());
            }
        }, (row) -> row.getLong(1));
    }

    @Override
    public DebouncedSend enqueueDebounced(String queue, NewJob job) {
        String key = Objects.requireNonNull(job.debounceKey(), "debounce key");
        List<DebouncedSend> sent = jdbc.query(inserts.debounced, (params) -> {
            InsertStatements.RowShape.SINGLE.bind(params, List.of(job));
            params.text("queue", queue).text("debounce_key", key).text("fairness_key", job.fairnessKey());
        }, (row) -> new DebouncedSend(row.getLong("id"), row.getBoolean("inserted")));
        return sent.get(0);
    }

    @Override
    public @Nullable Long findLiveByDedupKey(String queue, String dedupKey) {
        List<Long> ids = jdbc.query(findLiveByDedupKey, (params) -> params.text("queue", queue).text("dedup_key", dedupKey),
                (row) -> row.getLong(1));
        return ids.isEmpty() ? null : ids.get(0);
    }
}
