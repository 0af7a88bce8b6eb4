package io.pgqueue.admin;

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
