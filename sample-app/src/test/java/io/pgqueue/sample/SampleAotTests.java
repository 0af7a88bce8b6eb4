package io.pgqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;

import io.pgqueue.QueueOperations;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample processed ahead of time, as for a native image: its context (its listeners, pgqueue, its own
 * Flyway migrations) generated as code, compiled, started from that code, and a job it sends is handled.
 * The web layer is left out (a plain application context runs no server).
 */
@CompileWithForkedClassLoader
class SampleAotTests {

    private static final TestDatabase database = TestPostgres.createDatabase(SampleAotTests.class);

    @Test
    void theSampleProcessedAheadOfTimeStartsAndHandlesAReading() {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        properties().applyTo(context);
        context.register(SampleApplication.class);
        TestGenerationContext generation = new TestGenerationContext();
        ClassName initializerName = new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        generation.writeGeneratedContent();
        // a native image of it would be built with hints for its listener and the reading payload
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ReadingListener.class, "record"))
            .accepts(generation.getRuntimeHints());
        assertThat(RuntimeHintsPredicates.reflection().onType(MeterReading.class)).accepts(generation.getRuntimeHints());

        TestCompiler.forSystem().with(generation).compile((compiled) -> {
            try (GenericApplicationContext aotContext = new GenericApplicationContext()) {
                properties().applyTo(aotContext);
                @SuppressWarnings("unchecked")
                ApplicationContextInitializer<GenericApplicationContext> initializer = compiled
                    .getInstance(ApplicationContextInitializer.class, initializerName.toString());
                initializer.initialize(aotContext);
                aotContext.refresh();

                aotContext.getBean(QueueOperations.class).send(ReadingController.READINGS_QUEUE,
                        new MeterReading(55, new BigDecimal("2.000")));
                JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
                await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                        "SELECT count(*) FROM meter_reading WHERE account_id = 55", Long.class) == 1);
            }
        });
    }

    private static TestPropertyValues properties() {
        return TestPropertyValues.of("spring.datasource.url=" + database.jdbcUrl(),
                "spring.datasource.username=" + database.username(), "spring.datasource.password=" + database.password(),
                "spring.application.name=pgqueue-sample", "pgqueue.listener.poll-interval=200ms");
    }
}
