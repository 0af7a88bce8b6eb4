package io.pgqueue.internal.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.pgqueue.SendOptions;
import io.pgqueue.internal.persistence.DurableRepository;
import io.pgqueue.internal.persistence.DurableRepository.NewStep;
import io.pgqueue.internal.persistence.DurableRepository.StoredStep;
import io.pgqueue.internal.persistence.DurableRepository.StoredWait;
import io.pgqueue.internal.persistence.PostgresText;
import io.pgqueue.model.EventKeys;
import io.pgqueue.listener.ChildJobFailedException;
import io.pgqueue.listener.JobSuspendedException;
import io.pgqueue.listener.adapter.MethodJobHandler;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The durable calls of one run of one job: its completed steps and its wait, read by the first durable call (one
 * statement), and each call's occurrence, so that a resumed run meets its steps in the order the first run made
 * them. A sleep or an await that must wait parks the job and ends the run by a {@link JobSuspendedException};
 * once the run is suspended, every further durable call throws it again.
 */
final class DurableRun {

    /** Names of pgqueue's own records: a step's name may not start with it. */
    static final String OWN_NAMES = "pgqueue.";

    static final int MAX_KEY = EventKeys.MAX_LENGTH;

    /** The header that makes a spawned job tell the job that spawned it how it ended. */
    static final String AWAITED_HEADER = "pgqueue-awaited";

    private final DurableRuns runs;

    private final JobContextImpl context;

    private final MethodJobHandler handler;

    private final Map<String, Integer> occurrences = new HashMap<>();

    private @Nullable Map<String, StoredStep> completed;

    private @Nullable StoredWait wait;

    private @Nullable JobSuspendedException suspended;

    /** Whether the run is a TRANSACTIONAL handler's: a step's body then runs with its transaction suspended. */
    private final boolean inHandlerTransaction;

    DurableRun(DurableRuns runs, JobContextImpl context, MethodJobHandler handler, boolean inHandlerTransaction) {
        this.inHandlerTransaction = inHandlerTransaction;
        this.runs = runs;
        this.context = context;
        this.handler = handler;
    }

    private DurableRepository repository() {
        return runs.repository();
    }

    private long jobId() {
        return context.id();
    }

    // ---- steps ---------------------------------------------------------------------------------------------

    <T> @Nullable T step(String name, @Nullable JavaType type, Callable<? extends @Nullable T> body, boolean transactional) {
        checkName(name);
        return recorded(name, "step", type, body, transactional);
    }

    /** A step under its name and next occurrence: the stored result, else the body's, recorded. */
    private <T> @Nullable T recorded(String name, String kind, @Nullable JavaType type,
            Callable<? extends @Nullable T> body, boolean transactional) {
        int occurrence = next(name);
        StoredStep done = completed(name, occurrence);
        if (done != null) {
            return read(done, type);
        }
        Instant started = Instant.now();
        if (transactional) {
            return repository().inTransaction(() -> new Result<T>(run(name, occurrence, kind, body, started, false)))
                .value();
        }
        if (inHandlerTransaction) {
            // outside the handler's transaction: what the body writes must not roll back with the handler (on its
            // sleep, await or failure) once the step is recorded as done
            return repository().outsideTransaction(() -> new Result<T>(run(name, occurrence, kind, body, started, true)))
                .value();
        }
        return run(name, occurrence, kind, body, started, true);
    }

    /** A nullable value through APIs that refuse null. */
    private record Result<T>(@Nullable T value) {
    }

    private <T> @Nullable T run(String name, int occurrence, String kind, Callable<? extends @Nullable T> body,
            Instant started, boolean alone) {
        long startNanos = System.nanoTime();
        T value = call(body);
        String json = (value != null) ? write(name, value) : null;
        StoredStep stored = repository().record(new NewStep(jobId(), name, occurrence, kind, json,
                (value != null) ? value.getClass().getName() : null, started), alone);
        runs.observer().stepCompleted(context, name, Duration.ofNanos(System.nanoTime() - startNanos));
        if (json != null && !json.equals(stored.resultJson())) {
            // another run of the job recorded the step first: later steps must see the result that stands
            @SuppressWarnings("unchecked")
            T first = (T) read(stored, runs.codec().mapper().constructType(value.getClass()));
            return first;
        }
        return value;
    }

    private String write(String name, Object value) {
        return PostgresText.json(runs.codec().writeData("Result of type " + value.getClass().getName() + " of step '"
                + name + "' of job " + jobId() + " (nothing was recorded)", value));
    }

    private <T> @Nullable T read(StoredStep step, @Nullable JavaType type) {
        if (step.resultJson() == null) {
            return null;
        }
        JavaType target = (type != null) ? type : recordedType(step);
        @SuppressWarnings("unchecked")
        T value = (T) runs.codec().mapper().readValue(step.resultJson(), target);
        return value;
    }

    private JavaType recordedType(StoredStep step) {
        JavaType recorded = (step.resultType() != null) ? handler.recordedType(step.resultType()) : null;
        if (recorded == null) {
            throw new IllegalStateException("Step '" + step.name() + "' of job " + jobId() + " stored a "
                    + step.resultType() + ", which is not trusted to be read back for listener " + handler.describe()
                    + ": declare the type, ctx.step(name, " + simpleName(step.resultType()) + ".class, body), or add its "
                    + "package to pgqueue.listener.trusted-packages");
        }
        return recorded;
    }

    private static String simpleName(@Nullable String className) {
        return (className == null) ? "Type" : className.substring(className.lastIndexOf('.') + 1);
    }

    // ---- sleeps ----------------------------------------------------------------------------------------------

    void sleepUntil(Instant until) {
        String name = OWN_NAMES + "sleep";
        int occurrence = next(name);
        if (completed(name, occurrence) != null) {
            return;
        }
        StoredWait parked = waitFor(name, occurrence);
        String reason = "sleep until " + until;
        if (parked != null) {
            if (parked.over() || parked.woken()) {
                endWait(name, occurrence, "sleep", null);
                return;
            }
            throw suspend(reason, parked.remaining());
        }
        Duration left = Duration.between(Instant.now(), until);
        if (left.isNegative() || left.isZero()) {
            repository().record(new NewStep(jobId(), name, occurrence, "sleep", null, null, Instant.now()), true);
            return;
        }
        repository().park(jobId(), name, occurrence, "sleep", null, until);
        throw suspend(reason, left);
    }

    // ---- events ----------------------------------------------------------------------------------------------

    <T> Optional<T> awaitEvent(String key, Duration timeout, @Nullable JavaType type) {
        EventKeys.check(key);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("awaitEvent timeout must be positive: " + timeout);
        }
        String name = OWN_NAMES + "event:" + key;
        int occurrence = next(name);
        StoredStep done = completed(name, occurrence);
        if (done != null) {
            return eventPayload(done.resultJson(), type);
        }
        String reason = "event '" + key + "'";
        StoredWait parked = waitFor(name, occurrence);
        if (parked != null) {
            if (parked.delivered()) {
                return eventPayload(endWait(name, occurrence, "event", received(parked.payloadJson())), type);
            }
            if (parked.over() || parked.woken()) {
                return eventPayload(endWait(name, occurrence, "event", "{\"received\":false}"), type);
            }
            throw suspend(reason, parked.remaining());
        }
        DurableRepository.Delivery delivery = repository().awaitEvent(jobId(), name, occurrence, "event", key, null,
                Instant.now().plus(timeout));
        if (delivery.delivered()) {
            String result = received(delivery.payloadJson());
            repository().record(new NewStep(jobId(), name, occurrence, "event", result, null, Instant.now()), true);
            return eventPayload(result, type);
        }
        throw suspend(reason, timeout);
    }

    private static String received(@Nullable String payloadJson) {
        return "{\"received\":true,\"payload\":" + ((payloadJson != null) ? payloadJson : "null") + "}";
    }

    /** An await's result: the payload when the event came and has one, else empty. */
    @SuppressWarnings("unchecked")
    private <T> Optional<T> eventPayload(@Nullable String result, @Nullable JavaType type) {
        JsonNode node = runs.codec().mapper().readTree((result != null) ? result : "{}");
        JsonNode payload = node.path("payload");
        if (!node.path("received").asBoolean(false)) {
            return Optional.empty();
        }
        if (type == null) {
            return (Optional<T>) Optional.of(Boolean.TRUE);
        }
        if (payload.isNull() || payload.isMissingNode()) {
            return Optional.empty();
        }
        return Optional.ofNullable(runs.codec().mapper().readValue(payload.toString(), type));
    }

    // ---- spawned jobs ----------------------------------------------------------------------------------------

    long spawn(String queue, Object payload, SendOptions options) {
        String name = OWN_NAMES + "spawn:" + queue;
        int occurrence = next(name);
        StoredStep done = completed(name, occurrence);
        if (done != null) {
            return Long.parseLong(java.util.Objects.requireNonNull(done.resultJson()));
        }
        SendOptions awaited = options.toBuilder().header(AWAITED_HEADER, Long.toString(jobId())).build();
        // sent and recorded in one transaction of their own: exactly once, and standing when a TRANSACTIONAL
        // handler's transaction rolls back on the await that parks it
        return repository().inOwnTransaction(() -> {
            io.pgqueue.model.SendResult sent = runs.template().get().send(queue, payload, awaited);
            if (sent.jobId() == null) {
                throw new IllegalStateException("spawn to queue '" + queue + "' from job " + jobId() + " sent no job: "
                        + "its dedup or debounce key is taken by a job whose id is unknown; spawn without one");
            }
            long id = sent.jobId();
            StoredStep stored = repository().record(new NewStep(jobId(), name, occurrence, "spawn", Long.toString(id),
                    "java.lang.Long", Instant.now()), false);
            return Long.parseLong(java.util.Objects.requireNonNull(stored.resultJson()));
        });
    }

    <T> @Nullable T awaitJob(long childId, JavaType type) {
        String name = OWN_NAMES + "job:" + childId;
        int occurrence = next(name);
        StoredStep done = completed(name, occurrence);
        if (done != null) {
            return jobResult(childId, done.resultJson(), type);
        }
        StoredWait parked = waitFor(name, occurrence);
        if (parked != null && parked.delivered()) {
            return jobResult(childId, endWait(name, occurrence, "job", parked.payloadJson()), type);
        }
        String key = EventKeys.jobEnded(childId);
        DurableRepository.Delivery delivery = repository().awaitEvent(jobId(), name, occurrence, "job", key, childId, null);
        if (delivery.delivered()) {
            return jobResult(childId, endWait(name, occurrence, "job", delivery.payloadJson()), type);
        }
        DurableRepository.ChildState child = repository().child(childId);
        if (child == null || "dead".equals(child.state())) {
            // gone without telling (cancelled, purged, expired) or dead by rescue: its event, if it came since, wins
            DurableRepository.Delivery late = repository().awaitEvent(jobId(), name, occurrence, "job", key, childId, null);
            ObjectNode ended = runs.codec().mapper().createObjectNode().put("state", (child == null) ? "gone" : "dead");
            if (child != null && child.lastError() != null) {
                ended.put("error", firstLine(child.lastError()));
            }
            return jobResult(childId, endWait(name, occurrence, "job",
                    late.delivered() ? late.payloadJson() : ended.toString()), type);
        }
        throw suspend("job " + childId, runs.childRecheck());
    }

    private <T> @Nullable T jobResult(long childId, @Nullable String result, JavaType type) {
        JsonNode node = runs.codec().mapper().readTree((result != null) ? result : "{}");
        String state = node.path("state").asString("gone");
        if (!"completed".equals(state)) {
            JsonNode error = node.path("error");
            throw new ChildJobFailedException(childId, state, error.isMissingNode() || error.isNull() ? null : error.asString());
        }
        JsonNode output = node.path("output");
        if (output.isNull() || output.isMissingNode()) {
            return null;
        }
        return runs.codec().mapper().readValue(output.toString(), type);
    }

    /** An error's first line: what a job awaiting a dead one is told. */
    static String firstLine(String text) {
        int end = text.indexOf('\n');
        return (end < 0) ? text : text.substring(0, end);
    }

    // ---- bookkeeping -----------------------------------------------------------------------------------------

    /** Ends the job's wait by recording its step; returns the recorded result. */
    private @Nullable String endWait(String name, int occurrence, String kind, @Nullable String result) {
        repository().endWait(new NewStep(jobId(), name, occurrence, kind, result, null, Instant.now()));
        wait = null;
        return result;
    }

    private JobSuspendedException suspend(String reason, @Nullable Duration delay) {
        Duration until = (delay != null) ? delay : runs.childRecheck();
        JobSuspendedException suspension = new JobSuspendedException(reason, until);
        suspended = suspension;
        context.snooze(until);
        return suspension;
    }

    /** Refuses every durable call after the run was suspended: no code after a wait runs before it ended. */
    void checkNotSuspended() {
        if (suspended != null) {
            throw suspended;
        }
    }

    private int next(String name) {
        checkNotSuspended();
        load();
        return occurrences.merge(name, 1, Integer::sum);
    }

    private void load() {
        if (completed != null) {
            return;
        }
        DurableRepository.Progress progress = repository().progress(jobId());
        Map<String, StoredStep> steps = new HashMap<>();
        for (StoredStep step : progress.steps()) {
            steps.put(key(step.name(), step.occurrence()), step);
        }
        completed = steps;
        wait = progress.parked();
    }

    private @Nullable StoredStep completed(String name, int occurrence) {
        return java.util.Objects.requireNonNull(completed).get(key(name, occurrence));
    }

    private @Nullable StoredWait waitFor(String name, int occurrence) {
        StoredWait current = wait;
        return (current != null && current.name().equals(name) && current.occurrence() == occurrence) ? current : null;
    }

    private static String key(String name, int occurrence) {
        return occurrence + ":" + name;
    }

    private static void checkName(String name) {
        if (name == null || name.isBlank() || name.length() > MAX_KEY) {
            throw new IllegalArgumentException("A step's name must have 1 to " + MAX_KEY + " characters: '" + name + "'");
        }
        if (name.startsWith(OWN_NAMES)) {
            throw new IllegalArgumentException("Step names starting with '" + OWN_NAMES + "' are pgqueue's own: '" + name + "'");
        }
        if (name.indexOf('\u0000') >= 0) {
            throw new IllegalArgumentException("A step's name cannot hold a NUL character");
        }
    }

    /** Calls the body, its checked exceptions passed on as they are (an error handler may classify them). */
    private static <T> @Nullable T call(Callable<? extends @Nullable T> body) {
        try {
            return body.call();
        }
        catch (Exception ex) {
            throw DurableRun.<RuntimeException>sneaky(ex);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable ex) throws E {
        throw (E) ex;
    }
}
