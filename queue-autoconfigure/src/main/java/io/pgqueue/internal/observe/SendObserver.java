package io.pgqueue.internal.observe;

import java.util.Map;

/**
 * Observes a send: the work runs inside the observation and sends its jobs with the headers it is given
 * (the sender's plus the trace context the observation added).
 */
public interface SendObserver {

    SendObserver NONE = new SendObserver() {
        @Override
        public <T> T observe(String queue, Map<String, String> headers, int jobCount, SendWork<T> work) {
            return work.run(headers, (jobId) -> {
            });
        }
    };

    <T> T observe(String queue, Map<String, String> headers, int jobCount, SendWork<T> work);

    /** The same observer for the sends of one of several databases: their observations name it. */
    default SendObserver withDatabase(String database) {
        return this;
    }

    /** The observed send. */
    @FunctionalInterface
    interface SendWork<T> {

        /**
         * @param headers the headers to send with
         * @param sentJob told the id of the job sent, for a single send
         */
        T run(Map<String, String> headers, java.util.function.LongConsumer sentJob);
    }
}
