package io.pgqueue.admin;

/**
 * Operating queues from Java: what the Actuator endpoint and the dashboard offer over HTTP. Pausing, schedules
 * and cancellation are stored in the database and honoured by every node. pgqueue's implementation backs off
 * when the application defines a bean of this type.
 * <p>
 * It is every role at once: {@link JobsAdmin}, {@link QueuesAdmin}, {@link SchedulesAdmin},
 * {@link WorkflowsAdmin}, {@link BatchesAdmin}, {@link FairnessAdmin} and {@link ClusterAdmin}. A class that
 * needs one role injects that role (the one {@code QueueAdmin} bean is each of them); {@link #of} puts one
 * together from its roles.
 */
public interface QueueAdmin extends JobsAdmin, QueuesAdmin, SchedulesAdmin, WorkflowsAdmin, BatchesAdmin,
        FairnessAdmin, ClusterAdmin {

    /** A {@code QueueAdmin} whose calls go to the role that answers each. */
    static QueueAdmin of(JobsAdmin jobs, QueuesAdmin queues, SchedulesAdmin schedules, WorkflowsAdmin workflows,
            BatchesAdmin batches, FairnessAdmin fairness, ClusterAdmin cluster) {
        return new RoleQueueAdmin(jobs, queues, schedules, workflows, batches, fairness, cluster);
    }
}
