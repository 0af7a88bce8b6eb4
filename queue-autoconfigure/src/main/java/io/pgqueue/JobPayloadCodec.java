package io.pgqueue;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes payloads and headers as JSON and reads them back, with the application's Jackson 3 mapper.
 */
public class JobPayloadCodec {

    private final JsonMapper mapper;

    private final long maxPayloadBytes;

    /**
     * @param mapper the application's mapper
     * @param maxPayloadBytes largest serialised payload accepted at send, in UTF-8 bytes
     */
    public JobPayloadCodec(JsonMapper mapper, long maxPayloadBytes) {
        this.mapper = mapper;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    public JsonMapper mapper() {
        return mapper;
    }

    /** Serialises a payload; rejects one that Jackson cannot write or that is larger than the limit. */
    public String writePayload(String queue, Object payload) {
        String json;
        try {
            json = mapper.writeValueAsString(payload);
        }
        catch (JacksonException ex) {
            throw new IllegalArgumentException("Payload of type " + payload.getClass().getName() + " for queue '"
                    + queue + "' cannot be written as JSON: " + ex.getOriginalMessage(), ex);
        }
        checkSize(queue, json);
        return json;
    }

    public @Nullable String writeHeaders(Map<String, String> headers) {
        return headers.isEmpty() ? null : mapper.writeValueAsString(headers);
    }

    public Object readPayload(String json, JavaType type) {
        return mapper.readValue(json, type);
    }

    private void checkSize(String queue, String json) {
        // a UTF-8 character takes at most 3 bytes per UTF-16 unit: skip the exact count for small payloads
        if ((long) json.length() * 3 <= maxPayloadBytes) {
            return;
        }
        long bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxPayloadBytes) {
            throw new IllegalArgumentException("Payload for queue '" + queue + "' is " + bytes
                    + " bytes of JSON, more than the limit of " + maxPayloadBytes
                    + " bytes (pgqueue.template.max-payload-size)");
        }
    }
}
