package io.pgqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the listener of a queue. Supported parameters: the payload type {@code T} (read from
 * JSON with the application's mapper), a {@link io.pgqueue.listener.JobContext}, both, or {@code List<T>} for
 * a batch listener. Throwing schedules a retry; after the attempts are used up the job goes dead.
 * <p>
 * Every attribute is a String and may use {@code ${…}} placeholders. An attribute left empty comes from
 * {@code pgqueue.queues.<queue>.*}, then from {@code pgqueue.listener.*}.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface QueueListener {

    /** The queue to listen to. */
    String queue();

    /** Container id, e.g. for the Actuator endpoint; default {@code <queue>-<n>}. */
    String id() default "";

    /** Handlers running at once. */
    String concurrency() default "";

    /** {@code LEASE} or {@code TRANSACTIONAL}. */
    String mode() default "";

    /** Most jobs claimed per statement; for a {@code List<T>} listener, the most jobs per call. */
    String batchSize() default "";

    /** Attempts before a job goes dead (a job sent with its own max attempts keeps those). */
    String maxAttempts() default "";

    /**
     * The most the handler may run on one job (a batch listener: on one batch), e.g. {@code 30s} or
     * {@code PT5M}; past it the handler's thread is interrupted and the attempt fails with a timeout. A job
     * sent with its own {@code SendOptions.timeout} keeps that.
     */
    String timeout() default "";
}
