package io.pgqueue.admin;

/**
 * Operating queues from Java: what the Actuator endpoint and the dashboard offer over HTTP. Pausing, schedules
 * and cancellation are stored in the database and honoured by every node. pgqueue's implementation backs off
 * when the application defines a bean of this type.
 * <p>
 * It is every role at once: {@link JobsAdmin}, {@link QueuesAdmin}, {@link SchedulesAdmin},
 * {@link WorkflowsAdmin}, {@link BatchesAdmin}, {@link FairnessAdmin}, {@link ClusterAdmin} and
 * {@link DurableAdmin}. A class that
 * needs one role injects that role (the one {@code QueueAdmin} bean is each of them); {@link ComposedQueueAdmin}
 * puts one together from its roles.
 */
public interface QueueAdmin extends JobsAdmin, QueuesAdmin, SchedulesAdmin, WorkflowsAdmin, BatchesAdmin,
        FairnessAdmin, ClusterAdmin, DurableAdmin {
}
