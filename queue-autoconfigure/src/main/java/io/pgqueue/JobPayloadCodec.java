package io.pgqueue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes payloads and headers as JSON and reads them back, with the application's Jackson 3 mapper.
 */
public class JobPayloadCodec {

    private final JsonMapper mapper;

    /** The application's mapper, refusing objects without properties: such a payload would be stored as {}. */
    private final ObjectWriter strictWriter;

    /** JDK packages of plain values, trusted as recorded payload types (the package itself, not below it). */
    private static final Set<String> VALUE_PACKAGES = Set.of("java.lang", "java.util", "java.time", "java.math");

    private final long maxPayloadBytes;

    private final List<String> trustedPackages;

    /**
     * @param mapper the application's mapper
     * @param maxPayloadBytes largest serialised payload accepted at send, in UTF-8 bytes
     */
    public JobPayloadCodec(JsonMapper mapper, long maxPayloadBytes) {
        this(mapper, maxPayloadBytes, List.of());
    }

    /**
     * @param mapper the application's mapper
     * @param maxPayloadBytes largest serialised payload accepted at send, in UTF-8 bytes
     * @param trustedPackages packages (with their sub-packages) whose classes a listener declared with an open
     * type ({@code Object}, an interface, an abstract class) may receive as the type recorded with a job
     */
    public JobPayloadCodec(JsonMapper mapper, long maxPayloadBytes, List<String> trustedPackages) {
        this.mapper = mapper;
        this.strictWriter = mapper.writer().with(SerializationFeature.FAIL_ON_EMPTY_BEANS);
        this.maxPayloadBytes = maxPayloadBytes;
        this.trustedPackages = List.copyOf(trustedPackages);
    }

    /**
     * Whether a listener of the given class, declared with an open payload type, may receive a payload as
     * the class a job's row names. Anyone who can write a row can name any class, and reading JSON into some
     * classes runs code: only the listener's own package (and below), plain JDK value types and the
     * configured packages are trusted.
     */
    public boolean isTrusted(String className, Class<?> listenerClass) {
        String packageName = packageOf(className);
        if (VALUE_PACKAGES.contains(packageName)) {
            return true;
        }
        return within(packageName, listenerClass.getPackageName())
                || trustedPackages.stream().anyMatch((trusted) -> within(packageName, trusted));
    }

    private static boolean within(String packageName, String trusted) {
        return !trusted.isEmpty() && (packageName.equals(trusted) || packageName.startsWith(trusted + "."));
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return (dot < 0) ? "" : className.substring(0, dot);
    }

    public JsonMapper mapper() {
        return mapper;
    }

    /**
     * Serialises a payload; rejects one that Jackson cannot write, that holds an object with no data Jackson can
     * see (a class with private fields only, a stream, a connection: written as {@code {}}, whatever the
     * application's mapper says about empty beans), or that is larger than the limit. A record without
     * components is data, and written as {@code {}}.
     */
    public String writePayload(String queue, Object payload) {
        String json = writeData("Payload of type " + payload.getClass().getName() + " for queue '" + queue + "'", payload);
        checkSize(queue, json);
        return json;
    }

    /**
     * Serialises a value that must be data (an event's payload, a durable step's result) as a payload is, without
     * the payload's size limit.
     *
     * @param what what the value is, for the error: {@code "Payload of type Receipt of event 'paid:42'"}
     * @throws IllegalArgumentException when the value cannot be written (or is an object with no data Jackson sees)
     */
    public String writeData(String what, Object value) {
        try {
            return strictWriter.writeValueAsString(value);
        }
        catch (InvalidDefinitionException ex) {
            return writeEmptyRecord(what, value, ex);
        }
        catch (JacksonException ex) {
            throw unwritable(what, value, ex);
        }
    }

    /** A value refused for an empty bean: written all the same if that bean is a record without components. */
    private String writeEmptyRecord(String what, Object value, InvalidDefinitionException ex) {
        Class<?> empty = (ex.getType() != null) ? ex.getType().getRawClass() : null;
        if (empty == null || !empty.isRecord() || empty.getRecordComponents().length > 0) {
            throw unwritable(what, value, ex);
        }
        try {
            return mapper.writeValueAsString(value);
        }
        catch (JacksonException again) {
            throw unwritable(what, value, again);
        }
    }

    private static IllegalArgumentException unwritable(String what, Object value, JacksonException ex) {
        return new IllegalArgumentException(what + " cannot be written as JSON: "
                + ex.getOriginalMessage()
                + " (it must be data: records, beans with getters, collections, strings, numbers)", ex);
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
