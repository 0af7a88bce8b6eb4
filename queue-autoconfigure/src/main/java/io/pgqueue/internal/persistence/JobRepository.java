package io.pgqueue.internal.persistence;



/**
 * Every change of a job row, one method per {@link Transition} (each one statement, or one inside the
 * caller's transaction), and the reads of job rows: the only code that writes the job table. Its callers
 * depend on the port they need: publishing on {@link JobPublishPort}, the engine on {@link JobEnginePort},
 * maintenance and rescue on {@link JobMaintenancePort}, operating on {@link JobAdminPort}.
 */
public interface JobRepository extends JobPublishPort, JobEnginePort, JobMaintenancePort, JobAdminPort {
}
