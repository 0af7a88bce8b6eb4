package io.pgqueue.admin;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import io.pgqueue.model.JobState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What operators can do, one catalogue for every front door (the Actuator endpoint and the dashboard): each
 * action's verb, what it acts on, the states of the jobs it applies to (held to the lifecycle's transitions by a
 * test), the older spellings each front door still accepts, and the one audit line every action writes.
 */
public enum AdminAction {

    PAUSE(Target.QUEUE, "pause"),

    RESUME(Target.QUEUE, "resume"),

    /** Scheduled and ready jobs finish as cancelled at once; a running LEASE job's cancellation is requested. */
    CANCEL(Target.JOB, "cancel", EnumSet.of(JobState.WAITING, JobState.SCHEDULED, JobState.READY, JobState.RUNNING)),

    /** Dead jobs run again with fresh attempts. */
    RETRY(Target.JOB, "retry", EnumSet.of(JobState.DEAD), "retry-dead"),

    /** Dead jobs are deleted. */
    PURGE(Target.JOB, "purge", EnumSet.of(JobState.DEAD), "purge-dead", "delete"),

    /**
     * Ends a parked job's wait (a sleep, an await) now. A parked job is scheduled; a front door offers it for the
     * scheduled jobs that wait for something ({@code DurableAdmin.waitOf}), not for every scheduled job.
     */
    WAKE(Target.JOB, "wake", EnumSet.of(JobState.SCHEDULED)),

    PAUSE_SCHEDULE(Target.SCHEDULE, "pause"),

    RESUME_SCHEDULE(Target.SCHEDULE, "resume"),

    TRIGGER(Target.SCHEDULE, "trigger"),

    RESCHEDULE(Target.SCHEDULE, "reschedule"),

    REMOVE(Target.SCHEDULE, "remove"),

    /** One fairness key of a fair queue is held back; the queue's other keys keep running. */
    PAUSE_KEY(Target.FAIRNESS_KEY, "pause"),

    RESUME_KEY(Target.FAIRNESS_KEY, "resume"),

    /** A fairness key's weight is set at run time (with {@code weight}), cluster-wide. */
    WEIGHT(Target.FAIRNESS_KEY, "weight"),

    /** A fairness key's weight set at run time is cleared: the configured one applies again. */
    CLEAR_WEIGHT(Target.FAIRNESS_KEY, "clear-weight");

    /** What an action acts on: a queue (or jobs of it), one job, a recurring job, or a fair queue's key. */
    public enum Target {
        QUEUE, JOB, SCHEDULE, FAIRNESS_KEY
    }

    private static final Log audit = LogFactory.getLog(AdminAction.class);

    private final Target target;

    private final String verb;

    private final Set<JobState> appliesTo;

    private final List<String> aliases;

    AdminAction(Target target, String verb) {
        this(target, verb, EnumSet.noneOf(JobState.class));
    }

    AdminAction(Target target, String verb, EnumSet<JobState> appliesTo, String... aliases) {
        this.target = target;
        this.verb = verb;
        this.appliesTo = Set.copyOf(appliesTo);
        this.aliases = List.of(aliases);
    }

    public Target target() {
        return target;
    }

    /** The word both front doors use for it. */
    public String verb() {
        return verb;
    }

    /** The states of the jobs it changes (for job actions; empty for the others). */
    public Set<JobState> appliesTo() {
        return appliesTo;
    }

    /**
     * The action a front door was asked for: a verb (or an older spelling of it) of an action on this target, or,
     * for a queue, of an action on the queue's jobs.
     * @throws IllegalArgumentException naming the verbs there are
     */
    public static AdminAction of(Target target, String verb) {
        String asked = verb.toLowerCase(Locale.ROOT);
        for (AdminAction action : values()) {
            boolean applies = action.target == target || (target == Target.QUEUE && action.target == Target.JOB);
            if (applies && (action.verb.equals(asked) || action.aliases.contains(asked))) {
                return action;
            }
        }
        throw new IllegalArgumentException("Unknown action '" + verb + "': use " + verbs(target));
    }

    /** The verbs of a target, e.g. for an error message. */
    public static String verbs(Target target) {
        return Arrays.stream(values())
            .filter((action) -> action.target == target || (target == Target.QUEUE && action.target == Target.JOB))
            .map(AdminAction::verb)
            .distinct()
            .collect(Collectors.joining(", "));
    }

    /** The actions that apply to a job in this state, in catalogue order. */
    public static List<AdminAction> forJob(JobState state) {
        return Arrays.stream(values()).filter((action) -> action.appliesTo.contains(state)).toList();
    }

    /**
     * Carries out a queue action ({@link #PAUSE}, {@link #RESUME}) on a queue: what both front doors do for the verb.
     * @throws IllegalStateException for an action on another target
     */
    public void onQueue(QueuesAdmin admin, String queue) {
        switch (this) {
            case PAUSE -> admin.pause(queue);
            case RESUME -> admin.resume(queue);
            default -> throw notOn(Target.QUEUE);
        }
    }

    /**
     * Carries out a job action on one job of a queue; returns how many jobs it changed (0 when a retry or
     * purge found no dead job of that id) and, for a cancel, what became of the job.
     * @throws IllegalArgumentException when the job is in another queue
     * @throws IllegalStateException for an action on another target
     */
    public <A extends JobsAdmin & DurableAdmin> Outcome onJob(A admin, String queue, long jobId) {
        return switch (this) {
            case WAKE -> {
                if (!admin.job(jobId).queue().equals(queue)) {
                    throw new IllegalArgumentException("Job " + jobId + " is not in queue '" + queue + "'");
                }
                yield new Outcome(admin.wake(jobId) ? 1 : 0, null);
            }
            case CANCEL -> {
                if (!admin.job(jobId).queue().equals(queue)) {
                    throw new IllegalArgumentException("Job " + jobId + " is not in queue '" + queue + "'");
                }
                yield new Outcome(1, admin.cancel(jobId).name().toLowerCase(Locale.ROOT));
            }
            case RETRY -> new Outcome(admin.retryDead(queue, jobId) ? 1 : 0, null);
            case PURGE -> new Outcome(admin.purgeDead(queue, jobId) ? 1 : 0, null);
            default -> throw notOn(Target.JOB);
        };
    }

    /**
     * Carries out a schedule action on a recurring job; returns how many it changed (a trigger or remove that
     * found nothing: 0). {@link #RESCHEDULE} takes exactly one of a cron expression and a fixed rate.
     * @throws IllegalArgumentException for a reschedule without exactly one of them
     * @throws IllegalStateException for an action on another target
     */
    public long onSchedule(SchedulesAdmin admin, String name, @Nullable String cron, @Nullable Duration fixedRate) {
        return switch (this) {
            case PAUSE_SCHEDULE -> {
                admin.pauseSchedule(name);
                yield 1;
            }
            case RESUME_SCHEDULE -> {
                admin.resumeSchedule(name);
                yield 1;
            }
            case TRIGGER -> admin.triggerSchedule(name) ? 1 : 0;
            case RESCHEDULE -> {
                if ((cron == null) == (fixedRate == null)) {
                    throw new IllegalArgumentException("reschedule needs exactly one of cron and fixedRate");
                }
                if (cron != null) {
                    admin.rescheduleCron(name, cron);
                }
                else {
                    admin.rescheduleFixedRate(name, fixedRate);
                }
                yield 1;
            }
            case REMOVE -> admin.removeSchedule(name) ? 1 : 0;
            default -> throw notOn(Target.SCHEDULE);
        };
    }

    /**
     * Carries out a fairness key action on one key of a fair queue; {@link #WEIGHT} takes a weight above zero.
     * @throws IllegalArgumentException for a weight action without a weight
     * @throws IllegalStateException for an action on another target
     */
    public void onKey(FairnessAdmin admin, String queue, String key, @Nullable Double weight) {
        switch (this) {
            case PAUSE_KEY -> admin.pauseFairnessKey(queue, key);
            case RESUME_KEY -> admin.resumeFairnessKey(queue, key);
            case WEIGHT -> {
                if (weight == null) {
                    throw new IllegalArgumentException("weight needs a weight: a number above zero");
                }
                admin.setFairnessWeight(queue, key, weight);
            }
            case CLEAR_WEIGHT -> admin.clearFairnessWeight(queue, key);
            default -> throw notOn(Target.FAIRNESS_KEY);
        }
    }

    private IllegalStateException notOn(Target asked) {
        return new IllegalStateException("'" + verb + "' is an action on a " + target.name().toLowerCase(Locale.ROOT)
                .replace('_', ' ') + ", not on a " + asked.name().toLowerCase(Locale.ROOT).replace('_', ' '));
    }

    /**
     * What an action on one job did: how many jobs it changed and, for a cancel, what became of the job
     * ({@code cancelled}, {@code cancel_requested}, ...), else null.
     */
    public record Outcome(long affected, @Nullable String result) {
    }

    /**
     * Writes the audit line of an action, the values masked for logs: who did what (the verb as it was asked
     * for) to what, through which front door, and, once it is known, how many jobs or schedules it changed.
     */
    public static void audit(String frontDoor, @Nullable String user, String verb, String target,
            @Nullable Long affected) {
        audit.info("pgqueue " + frontDoor + ": " + Masking.loggable((user != null) ? user : "anonymous") + " "
                + Masking.loggable(verb) + " " + Masking.loggable(target)
                + ((affected != null) ? " (" + affected + " affected)" : ""));
    }

    /** Writes the audit line of an action a front door refused, with the reason. */
    public static void refused(String frontDoor, @Nullable String user, String verb, String target,
            @Nullable String reason) {
        audit.warn("pgqueue " + frontDoor + " refused '" + Masking.loggable(verb) + "' on " + Masking.loggable(target)
                + " by " + Masking.loggable((user != null) ? user : "anonymous") + ": " + Masking.loggable(reason));
    }
}
