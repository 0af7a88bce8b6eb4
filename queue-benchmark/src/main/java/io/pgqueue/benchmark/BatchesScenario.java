package io.pgqueue.benchmark;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchEvent;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.benchmark.BenchServer.Database;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Batches against plain jobs in the same run, interleaved: N members in one batch, and N members in batches of
 * 100, sent in one transaction each and drained by no-op listeners (LEASE at the drain scenario's best setting,
 * and TRANSACTIONAL), as ratios of a plain send and drain of N no-op jobs; the share of the acknowledgements'
 * time spent waiting for locks while members of one batch drain, beside the same for plain jobs (sampled from
 * pg_stat_activity); and the latency from the last member's handler returning to the batch's callback handler
 * starting.
 */
final class BatchesScenario {

    private static final int PER_BATCH = 100;

    private static final int LATENCY_MEMBERS = 10;

    private BatchesScenario() {
    }

    /** Members count down; callbacks record their latency after the last member returned. */
    static class Members {

        static final AtomicReference<CountDownLatch> done = new AtomicReference<>(new CountDownLatch(0));

        static final Map<String, Long> lastReturned = new ConcurrentHashMap<>();

        static final Latencies callbacks = new Latencies(10_000);

        static final AtomicLong returned = new AtomicLong();

        @QueueListener(queue = "batch-bench-lease", concurrency = "${bench.concurrency:128}",
                batchSize = "${bench.batch:100}")
        void lease(String batch) {
            done.get().countDown();
        }

        @QueueListener(queue = "batch-bench-tx", mode = "TRANSACTIONAL", concurrency = "8", batchSize = "1")
        void transactional(String batch) {
            done.get().countDown();
        }

        @QueueListener(queue = "batch-bench-probe", concurrency = "4")
        void probe(String batch) {
            lastReturned.merge(batch, System.nanoTime(), Math::max);
        }

        @QueueListener(queue = "batch-bench-done", concurrency = "2")
        void callback(BatchEvent event) {
            Long last = lastReturned.get(event.batchName());
            if (last != null) {
                callbacks.record(System.nanoTime() - last);
            }
            done.get().countDown();
        }
    }

    static List<Result> run(BenchServer server, int members, int rounds) throws Exception {
        List<Result> results = new ArrayList<>();
        try (Database database = server.createDatabase("batches", 20);
                PgQueueApp app = PgQueueApp.start(database, 20, Map.of("bench.batch-members", "true"))) {
            BatchOperations batches = app.bean(BatchOperations.class);
            QueueTemplate template = app.template();
            TransactionTemplate transaction = new TransactionTemplate(
                    new DataSourceTransactionManager(app.bean(DataSource.class)));
            JdbcTemplate sql = new JdbcTemplate(app.bean(DataSource.class));
            app.startListeners();
            for (String queue : List.of("batch-bench-lease", "batch-bench-tx")) {
                String mode = queue.endsWith("lease") ? "LEASE" : "TRANSACTIONAL";
                int n = queue.endsWith("lease") ? members : Math.max(PER_BATCH, members / 5);
                Runnable plainSend = () -> template.sendBatch(queue, payloads(n, "plain"));
                Runnable oneSend = () -> oneBatch(batches, queue, n);
                Runnable manySend = () -> manyBatches(batches, queue, n, true);
                Runnable quietSend = () -> manyBatches(batches, queue, n, false);
                // warm-up: the first drain of a JVM measures its compiler
                new Drain(n, 0, transaction, plainSend, null).run(database, sql);
                new Drain(n, 1, transaction, oneSend, null).run(database, sql);
                new Drain(n, n / PER_BATCH, transaction, manySend, null).run(database, sql);
                List<Drain> plain = new ArrayList<>();
                List<Drain> one = new ArrayList<>();
                List<Drain> many = new ArrayList<>();
                List<Drain> quiet = new ArrayList<>();
                boolean sampled = mode.equals("LEASE");
                LockSampler plainLocks = sampled ? new LockSampler(database.pool) : null;
                LockSampler batchLocks = sampled ? new LockSampler(database.pool) : null;
                for (int round = 0; round < rounds; round++) {
                    plain.add(new Drain(n, 0, transaction, plainSend, plainLocks).run(database, sql));
                    one.add(new Drain(n, 1, transaction, oneSend, batchLocks).run(database, sql));
                    many.add(new Drain(n, n / PER_BATCH, transaction, manySend, null).run(database, sql));
                    quiet.add(new Drain(n, 0, transaction, quietSend, null).run(database, sql));
                }
                double plainRate = mean(plain, Drain::drainRate);
                String notes = n + " no-op members; baseline: a plain drain of " + n + " jobs, interleaved, mean of "
                        + rounds + (mode.equals("LEASE") ? "; LEASE 128 workers, claims of 100" : "; 8 workers");
                results.add(new Result("batches " + mode, "drain, 1 batch of " + n, mean(one, Drain::drainRate),
                        plainRate, "jobs/s", true, notes + "; from the commit of the send to the last handler"));
                results.add(new Result("batches " + mode, "drain, " + (n / PER_BATCH) + " batches of " + PER_BATCH,
                        mean(many, Drain::drainRate), plainRate, "jobs/s", true,
                        notes + "; from the commit of the send to the last handler"));
                results.add(new Result("batches " + mode, "drain, " + (n / PER_BATCH) + " batches of " + PER_BATCH
                        + " without callbacks", mean(quiet, Drain::drainRate), plainRate, "jobs/s", true,
                        notes + "; the bookkeeping alone: no callback job to run per batch"));
                double plainSendRate = mean(plain, Drain::sendRate);
                String sendNotes = "one transaction: sendBatch of " + n + " jobs vs open, addAll, seal";
                results.add(new Result("batches " + mode, "send, 1 batch of " + n, mean(one, Drain::sendRate),
                        plainSendRate, "jobs/s", true, sendNotes));
                results.add(new Result("batches " + mode, "send, " + (n / PER_BATCH) + " batches of " + PER_BATCH,
                        mean(many, Drain::sendRate), plainSendRate, "jobs/s", true, sendNotes + " per batch"));
                if (sampled) {
                    results.add(new Result("batches " + mode, "acks waiting on a lock, % (plain in baseline)",
                            batchLocks.percentWaiting(), plainLocks.percentWaiting(), "%", false,
                            batchLocks.samples() + " / " + plainLocks.samples() + " samples (1 ms apart) of active "
                                    + "acknowledgements while one batch / plain jobs drained"));
                }
            }
            results.addAll(callbackLatency(batches, template, rounds * 150));
        }
        return results;
    }

    private static void oneBatch(BatchOperations batches, String queue, int members) {
        long id = batches.open(Batch.builder("bench-one").onComplete("batch-bench-done").build());
        batches.addAll(id, queue, payloads(members, "one"));
        batches.seal(id);
    }

    private static void manyBatches(BatchOperations batches, String queue, int members, boolean callbacks) {
        for (int from = 0; from < members; from += PER_BATCH) {
            Batch.Builder batch = Batch.builder("bench-many");
            long id = batches.open((callbacks ? batch.onComplete("batch-bench-done") : batch).build());
            batches.addAll(id, queue, payloads(Math.min(PER_BATCH, members - from), "many"));
            batches.seal(id);
        }
    }

    /**
     * One small batch at a time: the time from its last member's handler returning (which its acknowledgement
     * follows) to its onComplete callback's handler starting.
     */
    private static List<Result> callbackLatency(BatchOperations batches, QueueTemplate template, int samples)
            throws InterruptedException {
        Members.callbacks.clear();
        for (int i = 0; i < samples; i++) {
            String name = "latency-" + i;
            CountDownLatch done = new CountDownLatch(1);
            Members.done.set(done);
            long id = batches.open(Batch.builder(name).onComplete("batch-bench-done").build());
            batches.addAll(id, "batch-bench-probe", payloads(LATENCY_MEMBERS, name));
            batches.seal(id);
            if (!done.await(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("Batch " + name + " never called back");
            }
        }
        String notes = samples + " batches of " + LATENCY_MEMBERS + " members, one at a time; from the last member's "
                + "handler returning (its acknowledgement follows) to the callback's handler starting";
        return List.of(
                new Result("batches callback", "p50", Members.callbacks.percentileMillis(50), Double.NaN, "ms", false,
                        notes),
                new Result("batches callback", "p99", Members.callbacks.percentileMillis(99), Double.NaN, "ms", false,
                        notes));
    }

    /**
     * A send of {@code count} jobs in one transaction (nothing is claimable before its commit), then their drain
     * until the listeners handled them and the {@code callbacks} that follow (which thus count against batches,
     * and do not spill into the next drain); jobs per second of each.
     */
    private static final class Drain {

        private final int count;

        private final int callbacks;

        private final TransactionTemplate transaction;

        private final Runnable send;

        private final @Nullable LockSampler locks;

        private double sendRate;

        private double drainRate;

        Drain(int count, int callbacks, TransactionTemplate transaction, Runnable send, @Nullable LockSampler locks) {
            this.count = count;
            this.callbacks = callbacks;
            this.transaction = transaction;
            this.send = send;
            this.locks = locks;
        }

        /**
         * Vacuums first (outside the timing; the server may run without autovacuum, and each drain should start
         * from the same table, whatever ran before it), then sends, analyses the job table in the sending
         * transaction (which sees its own rows: the claims plan for the table as it will be; not timed) and drains.
         */
        Drain run(Database database, JdbcTemplate sql) throws Exception {
            try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("VACUUM");
            }
            CountDownLatch done = new CountDownLatch(count + callbacks);
            Members.done.set(done);
            long[] sent = new long[1];
            long start = System.nanoTime();
            transaction.executeWithoutResult((status) -> {
                send.run();
                sent[0] = System.nanoTime();
                sql.execute("ANALYZE pgqueue.job");
            });
            long committed = System.nanoTime();
            if (locks != null) {
                locks.start();
            }
            boolean drained = done.await(10, TimeUnit.MINUTES);
            if (locks != null) {
                locks.stop();
            }
            if (!drained) {
                throw new IllegalStateException("Batch drain did not finish: " + done.getCount() + " left");
            }
            sendRate = count / ((sent[0] - start) / 1e9);
            drainRate = count / ((System.nanoTime() - committed) / 1e9);
            return this;
        }

        double sendRate() {
            return sendRate;
        }

        double drainRate() {
            return drainRate;
        }
    }

    private static List<String> payloads(int count, String batch) {
        List<String> payloads = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            payloads.add(batch);
        }
        return payloads;
    }

    private static double mean(List<Drain> drains, java.util.function.ToDoubleFunction<Drain> rate) {
        return drains.stream().mapToDouble(rate).average().orElse(Double.NaN);
    }

    /** Samples pg_stat_activity every millisecond: active acknowledgements, and those waiting for a lock. */
    private static final class LockSampler {

        private final DataSource dataSource;

        private final AtomicLong active = new AtomicLong();

        private final AtomicLong waiting = new AtomicLong();

        private volatile boolean running;

        private Thread thread;

        LockSampler(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /** Samples until {@link #stop()}; may be started again, adding to the same counts. */
        void start() {
            running = true;
            thread = new Thread(this::sample, "batch-lock-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }

        long samples() {
            return active.get();
        }

        double percentWaiting() {
            return (active.get() == 0) ? 0 : 100.0 * waiting.get() / active.get();
        }

        private void sample() {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                connection.setAutoCommit(true);
                while (running) {
                    try (ResultSet row = statement.executeQuery("""
                            SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock') FROM pg_stat_activity
                            WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
                              AND query LIKE '%/* pgqueue:complete */%'""")) {
                        row.next();
                        active.addAndGet(row.getLong(1));
                        waiting.addAndGet(row.getLong(2));
                    }
                    Thread.sleep(1);
                }
            }
            catch (Exception ex) {
                throw new IllegalStateException("Lock sampling failed", ex);
            }
        }
    }
}
