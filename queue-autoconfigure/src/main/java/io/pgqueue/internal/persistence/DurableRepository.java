package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * What durable execution keeps of a job between its runs ({@code job_step}, {@code job_wait}) and the events
 * waiting jobs are woken by ({@code event}). A job that sleeps or waits is an ordinary scheduled row whose run-at
 * is its deadline: parking and waking it are the transitions of a snooze and a promotion, and emitting an event
 * only makes its waiting jobs due at once.
 */
public interface DurableRepository {

    /** A completed step of a job, as its first successful run stored it. */
    record StoredStep(String name, int occurrence, String kind, @Nullable String resultJson, @Nullable String resultType) {
    }

    /**
     * What a parked job waits for, read when it runs again.
     *
     * @param over whether its deadline passed (database clock)
     * @param delivered whether its event was emitted (and not expired)
     * @param payloadJson the event's payload, when delivered
     * @param remaining how long until its deadline (zero when over; null for no deadline)
     */
    record StoredWait(String name, int occurrence, String kind, @Nullable String eventKey, @Nullable Long childId,
            boolean woken, boolean over, boolean delivered, @Nullable String payloadJson, @Nullable Duration remaining) {
    }

    /** A job's completed steps and its wait, read in one statement by the first durable call of a run. */
    record Progress(List<StoredStep> steps, @Nullable StoredWait parked) {
    }

    /** A step to record: its result as JSON (null for none) and the class it was written from. */
    record NewStep(long jobId, String name, int occurrence, String kind, @Nullable String resultJson,
            @Nullable String resultType, Instant startedAt) {
    }

    Progress progress(long jobId);

    /**
     * Runs work in a transaction on pgqueue's DataSource: the caller's when it has one there (a handler's
     * TRANSACTIONAL transaction, or one it opened), else a new one.
     */
    <T> T inTransaction(Supplier<T> work);

    /**
     * Runs work in a new transaction on pgqueue's DataSource, the caller's suspended meanwhile: what must stand when
     * a TRANSACTIONAL handler's transaction rolls back (a spawn, before the await that parks the job).
     */
    <T> T inOwnTransaction(Supplier<T> work);

    /**
     * Runs work with the caller's transaction on pgqueue's DataSource suspended, none of its own: a TRANSACTIONAL
     * handler's step, whose writes must not roll back with the handler once the step is recorded.
     */
    <T> T outsideTransaction(Supplier<T> work);

    /**
     * Records a completed step and returns the step as stored: this one, or the one another run of the same job
     * recorded first under the same name and occurrence.
     *
     * @param alone whether the record commits on its own (a step's checkpoint), else with the caller's
     * transaction (a transactional step's)
     */
    StoredStep record(NewStep step, boolean alone);

    /** Records the step that ends the job's wait and removes the wait, on its own. */
    void endWait(NewStep step);

    /**
     * Registers the job's wait for an event unless the event was emitted already (and returns its payload then,
     * registering nothing).
     *
     * @param kind {@code event}, or {@code job} for the end of a job it spawned (whose id is {@code childId})
     * @return whether the event was there, and its payload
     */
    Delivery awaitEvent(long jobId, String name, int occurrence, String kind, String key, @Nullable Long childId,
            @Nullable Instant until);

    /** An event found by an await. */
    record Delivery(boolean delivered, @Nullable String payloadJson) {
    }

    /** Registers the job's wait for a time or another job. */
    void park(long jobId, String name, int occurrence, String kind, @Nullable Long childId, @Nullable Instant until);

    /**
     * Emits an event: stored unless the key was emitted before (and has not expired), and the jobs waiting for it
     * made due now, their queues woken once the caller's transaction commits. Joins the caller's transaction.
     *
     * @return whether this emit was the key's first
     */
    boolean emit(String key, @Nullable String payloadJson, Duration retention);

    /** The state of a job another one awaits, or null when its row is gone; with its last error. */
    record ChildState(String state, @Nullable String lastError) {
    }

    @Nullable ChildState child(long childId);

    /**
     * Maintenance: makes due the waiting jobs of events emitted within the window that are not due yet (an emit and
     * a park that crossed: the emit looked before the job was parked). Returns how many.
     */
    int deliverRecent(Duration window);

    /**
     * Retention: removes expired events and what is kept of jobs that no longer exist, at most {@code limit} of
     * each. Returns the largest of the three counts (a full batch means: call again).
     */
    int expire(int limit);

    /** A step as operators see it. */
    record StepRecord(String name, int occurrence, String kind, @Nullable String resultJson, Instant startedAt,
            Instant finishedAt) {
    }

    /** A wait as operators see it. */
    record WaitRecord(String kind, @Nullable String eventKey, @Nullable Long childId, @Nullable Instant until,
            Instant since) {
    }

    /** The steps a job recorded, for operators, in the order they were recorded. */
    List<StepRecord> stepsOf(long jobId);

    /** What a job waits for, for operators: null when it waits for nothing. */
    @Nullable WaitRecord waitOf(long jobId);

    /**
     * Ends a parked job's wait now (an operator's wake): a sleep ends, an await of an event or a job ends as if
     * its timeout passed. Returns whether the job was parked.
     */
    boolean wake(long jobId);
}
