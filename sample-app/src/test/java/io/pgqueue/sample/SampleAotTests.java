package io.pgqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;

import io.pgqueue.QueueOperations;
import io.pgqueue.testsupport.AheadOfTime;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
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
        String[] properties = { "spring.datasource.url=" + database.jdbcUrl(),
                "spring.datasource.username=" + database.username(), "spring.datasource.password=" + database.password(),
                "spring.application.name=pgqueue-sample", "pgqueue.listener.poll-interval=200ms" };
        AheadOfTime.run(SampleApplication.class, properties, (hints, application) -> {
            // a native image of it would be built with hints for its listener and the reading payload
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ReadingListener.class, "record"))
                .accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onType(MeterReading.class)).accepts(hints);

            application.getBean(QueueOperations.class).send(ReadingController.READINGS_QUEUE,
                    new MeterReading(55, new BigDecimal("2.000")));
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM meter_reading WHERE account_id = 55", Long.class) == 1);
        });
    }
}
