package io.pgqueue.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags a {@link PgQueueObservation#PROCESS}; declare a bean to replace
 * {@link DefaultProcessObservationConvention}.
 */
public interface ProcessObservationConvention extends ObservationConvention<ProcessContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof ProcessContext;
    }

    @Override
    default String getName() {
        return "pgqueue.process";
    }
}
