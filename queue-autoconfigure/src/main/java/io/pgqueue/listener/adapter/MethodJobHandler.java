package io.pgqueue.listener.adapter;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.List;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.error.PayloadConversionException;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Invokes one {@code @QueueListener} method. Supported signatures: {@code (T)}, {@code (T, JobContext)},
 * {@code (JobContext, T)}, {@code (JobContext)} and, for a batch listener, {@code (List<T>)}. The payload is
 * read from JSON into {@code T} with the application's mapper; for {@code Object} (or an abstract type)
 * the type recorded at send is used when it is on the classpath and fits.
 */
public final class MethodJobHandler {

    private final Object bean;

    private final Method method;

    private final JobPayloadCodec codec;

    private final int payloadIndex;

    private final int contextIndex;

    private final boolean batch;

    private final Class<?> payloadClass;

    private final JavaType payloadType;

    private MethodJobHandler(Object bean, Method method, JobPayloadCodec codec, int payloadIndex, int contextIndex,
            boolean batch, Type payloadGenericType) {
        this.bean = bean;
        this.method = method;
        this.codec = codec;
        this.payloadIndex = payloadIndex;
        this.contextIndex = contextIndex;
        this.batch = batch;
        this.payloadType = codec.mapper().constructType(payloadGenericType);
        this.payloadClass = payloadType.getRawClass();
        ReflectionUtils.makeAccessible(method);
    }

    /**
     * Inspects the method's signature.
     * @throws IllegalStateException naming the method when the signature is not supported
     */
    public static MethodJobHandler create(Object bean, Method method, JobPayloadCodec codec) {
        Class<?>[] types = method.getParameterTypes();
        int payloadIndex = -1;
        int contextIndex = -1;
        for (int i = 0; i < types.length; i++) {
            if (JobContext.class.equals(types[i])) {
                if (contextIndex >= 0) {
                    throw unsupported(method, "more than one JobContext parameter");
                }
                contextIndex = i;
            }
            else if (payloadIndex >= 0) {
                throw unsupported(method, "more than one payload parameter");
            }
            else {
                payloadIndex = i;
            }
        }
        if (payloadIndex < 0 && contextIndex < 0) {
            throw unsupported(method, "no parameter");
        }
        boolean batch = payloadIndex >= 0 && List.class.equals(types[payloadIndex]);
        if (batch && contextIndex >= 0) {
            throw unsupported(method, "a batch listener (List<T>) cannot take a JobContext");
        }
        Type payloadType = Object.class;
        if (payloadIndex >= 0) {
            ResolvableType parameter = ResolvableType.forMethodParameter(new MethodParameter(method, payloadIndex));
            payloadType = batch ? parameter.getGeneric(0).getType() : parameter.getType();
            if (batch && parameter.getGeneric(0).resolve() == null) {
                throw unsupported(method, "the List parameter needs an element type, e.g. List<Order>");
            }
        }
        return new MethodJobHandler(bean, method, codec, payloadIndex, contextIndex, batch, payloadType);
    }

    private static IllegalStateException unsupported(Method method, String why) {
        return new IllegalStateException("@QueueListener method " + describe(method) + " has an unsupported signature ("
                + why + "). Supported: (T), (T, JobContext), (JobContext, T), (JobContext) or (List<T>)");
    }

    public static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName() + "("
                + String.join(", ", java.util.Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toList())
                + ")";
    }

    public boolean isBatch() {
        return batch;
    }

    public String describe() {
        return describe(method);
    }

    /** Reads a job's payload into the parameter type. */
    public @Nullable Object readPayload(long jobId, String payloadJson, @Nullable String payloadType) {
        if (payloadIndex < 0) {
            return null;
        }
        JavaType type = typeFor(jobId, payloadType);
        try {
            return codec.readPayload(payloadJson, type);
        }
        catch (RuntimeException ex) {
            String recorded = (payloadType != null) ? " (sent as " + payloadType + ")" : " (sent without a type)";
            throw new PayloadConversionException("Payload of job " + jobId + recorded + " cannot be read as "
                    + type.toCanonical() + ": " + ex.getMessage(), ex);
        }
    }

    /** Calls a single-job listener; returns what it returned (null for a void method). */
    public @Nullable Object invoke(@Nullable Object payload, JobContext context) throws Exception {
        Object[] arguments = new Object[method.getParameterCount()];
        if (payloadIndex >= 0) {
            arguments[payloadIndex] = payload;
        }
        if (contextIndex >= 0) {
            arguments[contextIndex] = context;
        }
        return call(arguments);
    }

    /** Calls a batch listener. */
    public void invokeBatch(List<@Nullable Object> payloads) throws Exception {
        call(new Object[] { payloads });
    }

    private @Nullable Object call(Object[] arguments) throws Exception {
        try {
            return method.invoke(bean, arguments);
        }
        catch (InvocationTargetException ex) {
            Throwable cause = ex.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw ex;
        }
    }

    /**
     * The type a durable step's result is read back as when the step was declared without one: the class
     * recorded with it, when it is on the listener's class path and trusted as an open payload type would be;
     * else null.
     */
    public @Nullable JavaType recordedType(String recordedType) {
        ClassLoader loader = bean.getClass().getClassLoader();
        if (!ClassUtils.isPresent(recordedType, loader) || !codec.isTrusted(recordedType, ClassUtils.getUserClass(bean))) {
            return null;
        }
        return codec.mapper().constructType(ClassUtils.resolveClassName(recordedType, loader));
    }

    /**
     * The type to read a payload into: the declared one, or for an open declared type ({@code Object}, an
     * interface, an abstract class) the type recorded at send when it is on the classpath, fits and is
     * trusted. A recorded type that fits but is not trusted fails the job: it goes dead with the reason.
     */
    private JavaType typeFor(long jobId, @Nullable String recordedType) {
        boolean open = payloadClass.equals(Object.class) || payloadClass.isInterface()
                || Modifier.isAbstract(payloadClass.getModifiers());
        ClassLoader loader = bean.getClass().getClassLoader();
        if (!open || recordedType == null || !ClassUtils.isPresent(recordedType, loader)) {
            return payloadType;
        }
        Class<?> recorded = ClassUtils.resolveClassName(recordedType, loader);
        if (!payloadClass.isAssignableFrom(recorded)) {
            return payloadType;
        }
        if (!codec.isTrusted(recordedType, ClassUtils.getUserClass(bean))) {
            throw new PayloadConversionException("Payload of job " + jobId + " names type " + recordedType
                    + ", which is not trusted for listener " + describe() + ": add its package to "
                    + "pgqueue.listener.trusted-packages if it is yours");
        }
        return codec.mapper().constructType(recorded);
    }
}
