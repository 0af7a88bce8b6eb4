package io.pgqueue.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * pgqueue's observations. Enabled with {@code pgqueue.template.observation-enabled} and
 * {@code pgqueue.listener.observation-enabled}; recorded in the application's {@code ObservationRegistry}.
 */
public enum PgQueueObservation implements ObservationDocumentation {

    /** Sending jobs: one observation per {@code send} or {@code sendBatch} call. */
    SEND {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultSendObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return SendLowCardinalityTags.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return SendHighCardinalityTags.values();
        }
    },

    /** Processing one job (one attempt), or one batch of a batch listener. */
    PROCESS {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultProcessObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return ProcessLowCardinalityTags.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return ProcessHighCardinalityTags.values();
        }
    };

    /** Low-cardinality tags of {@link #SEND}. */
    public enum SendLowCardinalityTags implements KeyName {

        /** The database the queue lives in, only when the application has several ({@code pgqueue.databases}). */
        DATABASE {
            @Override
            public String asString() {
                return "pgqueue.database";
            }
        },

        /** The queue. */
        QUEUE {
            @Override
            public String asString() {
                return "pgqueue.queue";
            }
        }
    }

    /** High-cardinality tags of {@link #SEND}. */
    public enum SendHighCardinalityTags implements KeyName {

        /** The id of the job sent (a single send that inserted one). */
        JOB_ID {
            @Override
            public String asString() {
                return "pgqueue.job.id";
            }
        },

        /** How many jobs the call sent. */
        JOB_COUNT {
            @Override
            public String asString() {
                return "pgqueue.job.count";
            }
        }
    }

    /** Low-cardinality tags of {@link #PROCESS}. */
    public enum ProcessLowCardinalityTags implements KeyName {

        /** The database the queue lives in, only when the application has several ({@code pgqueue.databases}). */
        DATABASE {
            @Override
            public String asString() {
                return "pgqueue.database";
            }
        },

        /** The queue. */
        QUEUE {
            @Override
            public String asString() {
                return "pgqueue.queue";
            }
        },

        /** The delivery mode: lease or transactional. */
        MODE {
            @Override
            public String asString() {
                return "pgqueue.mode";
            }
        },

        /** What became of the attempt: success, failure, snoozed or cancelled. */
        OUTCOME {
            @Override
            public String asString() {
                return "pgqueue.outcome";
            }
        }
    }

    /** High-cardinality tags of {@link #PROCESS}. */
    public enum ProcessHighCardinalityTags implements KeyName {

        /** The job's id (the first job's, for a batch). */
        JOB_ID {
            @Override
            public String asString() {
                return "pgqueue.job.id";
            }
        },

        /** The attempt's number. */
        ATTEMPT {
            @Override
            public String asString() {
                return "pgqueue.job.attempt";
            }
        },

        /** The workflow the job is a node of (only on nodes' runs). */
        WORKFLOW_ID {
            @Override
            public String asString() {
                return "pgqueue.workflow.id";
            }
        },

        /** The batch ({@code BatchOperations}) the job is a member of (only on members' runs). */
        BATCH_ID {
            @Override
            public String asString() {
                return "pgqueue.batch.id";
            }
        }
    }
}
