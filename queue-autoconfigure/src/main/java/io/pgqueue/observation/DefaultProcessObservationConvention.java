package io.pgqueue.observation;

import io.micrometer.common.KeyValues;

/** The default names and tags of {@link PgQueueObservation#PROCESS}. */
public class DefaultProcessObservationConvention implements ProcessObservationConvention {

    public static final DefaultProcessObservationConvention INSTANCE = new DefaultProcessObservationConvention();

    @Override
    public String getContextualName(ProcessContext context) {
        return context.queue() + " process";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(ProcessContext context) {
        KeyValues values = KeyValues.of(PgQueueObservation.ProcessLowCardinalityTags.QUEUE.withValue(context.queue()),
                PgQueueObservation.ProcessLowCardinalityTags.MODE.withValue(context.mode()),
                PgQueueObservation.ProcessLowCardinalityTags.OUTCOME.withValue(context.outcome()));
        return (context.database() != null)
                ? values.and(PgQueueObservation.ProcessLowCardinalityTags.DATABASE.withValue(context.database())) : values;
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(ProcessContext context) {
        KeyValues values = KeyValues.of(
                PgQueueObservation.ProcessHighCardinalityTags.JOB_ID.withValue(Long.toString(context.jobId())),
                PgQueueObservation.ProcessHighCardinalityTags.ATTEMPT.withValue(Integer.toString(context.attempt())));
        Long workflowId = context.workflowId();
        if (workflowId != null) {
            values = values.and(PgQueueObservation.ProcessHighCardinalityTags.WORKFLOW_ID.withValue(workflowId.toString()));
        }
        Long batchId = context.batchId();
        return (batchId != null)
                ? values.and(PgQueueObservation.ProcessHighCardinalityTags.BATCH_ID.withValue(batchId.toString()))
                : values;
    }
}
