package io.pgqueue.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@link PgQueueObservation#SEND}: its carrier is the headers the jobs are sent with, into
 * which a tracing handler writes the trace context (W3C {@code traceparent}, ...).
 */
public class SendContext extends SenderContext<Map<String, String>> {

    private final String queue;

    private final int jobCount;

    private @Nullable Long jobId;

    private @Nullable String database;

    public SendContext(String queue, Map<String, String> headers, int jobCount) {
        super((carrier, key, value) -> {
            if (carrier != null) {
                carrier.put(key, value);
            }
        }, Kind.PRODUCER);
        this.queue = queue;
        this.jobCount = jobCount;
        setCarrier(new LinkedHashMap<>(headers));
        setRemoteServiceName("pgqueue");
    }

    public String queue() {
        return queue;
    }

    public int jobCount() {
        return jobCount;
    }

    /** The id of the job sent, once inserted (single sends). */
    public @Nullable Long jobId() {
        return jobId;
    }

    public void setJobId(@Nullable Long jobId) {
        this.jobId = jobId;
    }

    /** The database the queue lives in, when the application has several ({@code pgqueue.databases}); else null. */
    public @Nullable String database() {
        return database;
    }

    public void setDatabase(@Nullable String database) {
        this.database = database;
    }

    /** The headers to send the jobs with: the given ones and what tracing added. */
    public Map<String, String> headers() {
        Map<String, String> carrier = getCarrier();
        return (carrier != null) ? carrier : Map.of();
    }
}
