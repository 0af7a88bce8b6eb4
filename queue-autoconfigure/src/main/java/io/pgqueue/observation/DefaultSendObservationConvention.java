package io.pgqueue.observation;

import io.micrometer.common.KeyValues;

/** The default names and tags of {@link PgQueueObservation#SEND}. */
public class DefaultSendObservationConvention implements SendObservationConvention {

    public static final DefaultSendObservationConvention INSTANCE = new DefaultSendObservationConvention();

    @Override
    public String getContextualName(SendContext context) {
        return context.queue() + " send";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(SendContext context) {
        KeyValues values = KeyValues.of(PgQueueObservation.SendLowCardinalityTags.QUEUE.withValue(context.queue()));
        return (context.database() != null)
                ? values.and(PgQueueObservation.SendLowCardinalityTags.DATABASE.withValue(context.database())) : values;
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(SendContext context) {
        KeyValues values = KeyValues.of(
                PgQueueObservation.SendHighCardinalityTags.JOB_COUNT.withValue(Integer.toString(context.jobCount())));
        return (context.jobId() != null)
                ? values.and(PgQueueObservation.SendHighCardinalityTags.JOB_ID.withValue(context.jobId().toString()))
                : values;
    }
}
