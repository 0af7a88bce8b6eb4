package io.pgqueue.testsupport;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

/**
 * Processes an application ahead of time, as a native-image build does, compiles the generated code and
 * starts the application from it. The calling test class must be annotated with
 * {@code @CompileWithForkedClassLoader}, so that the generated code may reach package-private types.
 */
public final class AheadOfTime {

    private AheadOfTime() {
    }

    /**
     * @param configuration the application's configuration class
     * @param properties its properties, as {@code name=value}
     * @param test given the hints the build produced and the started application (closed afterwards)
     */
    public static void run(Class<?> configuration, String[] properties,
            BiConsumer<RuntimeHints, GenericApplicationContext> test) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        apply(properties, context);
        context.register(configuration);
        TestGenerationContext generation = new TestGenerationContext();
        ClassName initializerName = new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        generation.writeGeneratedContent();
        TestCompiler.forSystem().with(generation).compile((compiled) -> {
            try (GenericApplicationContext started = new GenericApplicationContext()) {
                apply(properties, started);
                @SuppressWarnings("unchecked")
                ApplicationContextInitializer<GenericApplicationContext> initializer = compiled
                    .getInstance(ApplicationContextInitializer.class, initializerName.toString());
                initializer.initialize(started);
                started.refresh();
                test.accept(generation.getRuntimeHints(), started);
            }
        });
    }

    private static void apply(String[] properties, GenericApplicationContext context) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (String property : properties) {
            int equals = property.indexOf('=');
            values.put(property.substring(0, equals), property.substring(equals + 1));
        }
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("aheadOfTimeTest", values));
    }
}
