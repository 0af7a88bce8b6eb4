package io.pgqueue.autoconfigure.aot;

import io.pgqueue.actuate.PgQueueEndpoint;
import io.pgqueue.internal.schema.QueueSchemaInitializer;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.NodeContainer;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What pgqueue needs at run time that a native image would otherwise leave out: its migrations (read by its
 * private Flyway from the classpath) and the types it writes as JSON (the Actuator endpoint's descriptors).
 * A listener's own method and payload types are declared per bean by
 * {@link QueueListenerBeanRegistrationAotProcessor}.
 */
public class PgQueueRuntimeHints implements RuntimeHintsRegistrar {

    /** The migrations, as classpath resources. */
    public static final String MIGRATIONS = QueueSchemaInitializer.LOCATION.substring("classpath:".length()) + "/*.sql";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(MIGRATIONS);
        BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();
        bindings.registerReflectionHints(hints.reflection(), JobInfo.class);
        // the node table's containers column is read and written as JSON
        bindings.registerReflectionHints(hints.reflection(), NodeContainer.class);
        for (Class<?> descriptor : PgQueueEndpoint.class.getDeclaredClasses()) {
            if (descriptor.isRecord()) {
                bindings.registerReflectionHints(hints.reflection(), descriptor);
            }
        }
        hints.reflection().registerType(PgQueueEndpoint.class, MemberCategory.INVOKE_PUBLIC_METHODS);
    }
}
