package io.pgqueue.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags a {@link PgQueueObservation#SEND}; declare a bean to replace
 * {@link DefaultSendObservationConvention}.
 */
public interface SendObservationConvention extends ObservationConvention<SendContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof SendContext;
    }

    @Override
    default String getName() {
        return "pgqueue.send";
    }
}
