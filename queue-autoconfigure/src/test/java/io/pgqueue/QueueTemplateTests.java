package io.pgqueue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.SendResult;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.support.StatementCounter;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueTemplateTests {

    private static final TestDatabase database = TestPostgres.createDatabase(QueueTemplateTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.on(database);

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    record WelcomeEmail(long userId, String address) {
    }

    @BeforeEach
    void emptyQueue() {
        runner.run((context) -> jdbc.update("TRUNCATE pgqueue.job, pgqueue.queue_counter_delta"));
    }

    @Test
    void sendReturnsTheIdOfARowHoldingTheJsonPayload() {
        runner.run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("emails", new WelcomeEmail(7, "a@example.com"));

            Map<String, Object> row = jdbc.queryForMap(
                    "SELECT queue, state, payload = '{\"userId\": 7, \"address\": \"a@example.com\"}'::jsonb "
                            + "AS payload_matches, payload_type, priority, attempts, max_attempts, "
                            + "dedup_key, group_key, headers, run_at <= now() AS due FROM pgqueue.job WHERE id = ?",
                    id);
            assertThat(row).containsEntry("queue", "emails")
                .containsEntry("state", "ready")
                .containsEntry("payload_matches", true)
                .containsEntry("payload_type", WelcomeEmail.class.getName())
                .containsEntry("priority", 0)
                .containsEntry("attempts", 0)
                .containsEntry("max_attempts", null)
                .containsEntry("dedup_key", null)
                .containsEntry("group_key", null)
                .containsEntry("headers", null)
                .containsEntry("due", true);
        });
    }

    @Test
    void sendWithOptionsStoresEveryOption() {
        runner.run((context) -> {
            SendResult result = context.getBean(QueueTemplate.class)
                .send("emails", new WelcomeEmail(8, "b@example.com"),
                        SendOptions.builder()
                            .delay(Duration.ofMinutes(10))
                            .priority(5)
                            .dedupKey("welcome-8")
                            .maxAttempts(3)
                            .groupKey("user-8")
                            .header("trace", "abc")
                            .build());

            assertThat(result.created()).isTrue();
            Map<String, Object> row = jdbc.queryForMap("SELECT state, priority, max_attempts, dedup_key, group_key, "
                    + "headers->>'trace' AS trace, extract(epoch FROM run_at - now()) AS delay_seconds "
                    + "FROM pgqueue.job WHERE id = ?", result.jobId());
            assertThat(row).containsEntry("state", "scheduled")
                .containsEntry("priority", 5)
                .containsEntry("max_attempts", 3)
                .containsEntry("dedup_key", "welcome-8")
                .containsEntry("group_key", "user-8")
                .containsEntry("trace", "abc");
            assertThat(((Number) row.get("delay_seconds")).doubleValue()).isBetween(590.0, 600.0);
        });
    }

    @Test
    void sendBatchWithSharedOptionsStoresThemOnEveryRowAndEachPayloadOnItsOwn() {
        runner.run((context) -> {
            BatchSendResult result = context.getBean(QueueTemplate.class)
                .sendBatch("digests", List.of("a", "b", "c"), SendOptions.builder()
                    .delay(Duration.ofMinutes(10))
                    .priority(3)
                    .maxAttempts(2)
                    .groupKey("tenant-1")
                    .header("trace", "xyz")
                    .build());

            assertThat(result.jobIds()).hasSize(3);
            List<Map<String, Object>> rows = jdbc.queryForList("SELECT id, payload #>> '{}' AS payload, state, priority, "
                    + "max_attempts, group_key, headers->>'trace' AS trace, payload_type, "
                    + "extract(epoch FROM run_at - now()) AS delay_seconds FROM pgqueue.job WHERE queue = 'digests' "
                    + "ORDER BY id");
            assertThat(rows).extracting((row) -> row.get("payload")).containsExactly("a", "b", "c");
            assertThat(rows).extracting((row) -> ((Number) row.get("id")).longValue())
                .containsExactlyElementsOf(result.jobIds());
            assertThat(rows).allSatisfy((row) -> {
                assertThat(row).containsEntry("state", "scheduled")
                    .containsEntry("priority", 3)
                    .containsEntry("max_attempts", 2)
                    .containsEntry("group_key", "tenant-1")
                    .containsEntry("trace", "xyz")
                    .containsEntry("payload_type", String.class.getName());
                assertThat(((Number) row.get("delay_seconds")).doubleValue()).isBetween(590.0, 600.0);
            });
        });
    }

    @Test
    void sendWithAbsoluteRunAtUsesThatInstant() {
        runner.run((context) -> {
            Instant runAt = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
            SendResult result = context.getBean(QueueTemplate.class)
                .send("reports", "monthly", SendOptions.builder().runAt(runAt).build());

            Instant stored = jdbc.queryForObject("SELECT run_at FROM pgqueue.job WHERE id = ?", java.sql.Timestamp.class,
                    result.jobId()).toInstant();
            assertThat(stored).isEqualTo(runAt);
            assertThat(jdbc.queryForObject("SELECT state FROM pgqueue.job WHERE id = ?", String.class, result.jobId()))
                .isEqualTo("scheduled");
        });
    }

    @Test
    void sendInsideARolledBackTransactionLeavesNoRow() {
        runner.withUserConfiguration(SignupServiceConfiguration.class).run((context) -> {
            SignupService signup = context.getBean(SignupService.class);

            assertThatThrownBy(() -> signup.registerThenFail("c@example.com")).isInstanceOf(IllegalStateException.class);

            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class)).isZero();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.queue_counter_delta", Long.class)).isZero();
        });
    }

    @Test
    void sendInsideACommittedTransactionIsVisibleAfterCommit() {
        runner.withUserConfiguration(SignupServiceConfiguration.class).run((context) -> {
            long id = context.getBean(SignupService.class).register("d@example.com");

            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE id = ?", Long.class, id)).isOne();
        });
    }

    @Test
    void sendBatchInsertsTenThousandJobsInOneStatement() {
        StatementCounter counter = new StatementCounter("INSERT INTO \"pgqueue\".job");
        runner.withBean(DataSource.class, () -> counter.wrap(QueueContextRunners.pool(database))).run((context) -> {
            List<WelcomeEmail> payloads = IntStream.range(0, 10_000)
                .mapToObj((i) -> new WelcomeEmail(i, "user" + i + "@example.com"))
                .toList();
            QueueTemplate template = context.getBean(QueueTemplate.class);
            counter.reset();

            BatchSendResult result = template.sendBatch("bulk", payloads);

            assertThat(counter.count()).as(counter.statements()).isEqualTo(1);
            assertThat(result.inserted()).isEqualTo(10_000);
            assertThat(result.duplicates()).isZero();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'bulk'", Long.class))
                .isEqualTo(10_000);
            assertThat(jdbc.queryForObject("SELECT count(DISTINCT payload->>'userId') FROM pgqueue.job", Long.class))
                .isEqualTo(10_000);
        });
    }

    @Test
    void sendBatchLargerThanAChunkUsesOneStatementPerChunk() {
        StatementCounter counter = new StatementCounter("INSERT INTO \"pgqueue\".job");
        runner.withBean(DataSource.class, () -> counter.wrap(QueueContextRunners.pool(database)))
            .withPropertyValues("pgqueue.template.batch-chunk-size=1000")
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                counter.reset();

                BatchSendResult result = template.sendBatch("bulk", IntStream.range(0, 2500).boxed().toList());

                assertThat(counter.count()).as(counter.statements()).isEqualTo(3);
                assertThat(result.inserted()).isEqualTo(2500);
            });
    }

    @Test
    void sendBatchRespectsDedupKeysWithinTheBatchAndAgainstTheTable() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.send("emails", "existing", SendOptions.builder().dedupKey("k1").build());

            BatchSendResult result = template.sendBatch("emails",
                    List.of(JobRequest.of("dup of existing", SendOptions.builder().dedupKey("k1").build()),
                            JobRequest.of("first k2", SendOptions.builder().dedupKey("k2").build()),
                            JobRequest.of("second k2", SendOptions.builder().dedupKey("k2").build()),
                            "no key"));

            assertThat(result.requested()).isEqualTo(4);
            assertThat(result.inserted()).isEqualTo(2);
            assertThat(result.duplicates()).isEqualTo(2);
            assertThat(jdbc.queryForList("SELECT payload #>> '{}' FROM pgqueue.job ORDER BY id", String.class))
                .containsExactly("existing", "first k2", "no key");
        });
    }

    @Test
    void duplicateDedupKeyInsertsNothingAndReportsTheExistingJob() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            SendOptions options = SendOptions.builder().dedupKey("welcome-9").build();

            SendResult first = template.send("emails", new WelcomeEmail(9, "e@example.com"), options);
            SendResult second = template.send("emails", new WelcomeEmail(9, "e@example.com"), options);

            assertThat(first.created()).isTrue();
            assertThat(second.duplicate()).isTrue();
            assertThat(second.jobId()).isEqualTo(first.jobId());
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class)).isOne();
            // the same key in another queue is another job
            assertThat(template.send("sms", "x", options).created()).isTrue();
        });
    }

    @Test
    void deadJobDoesNotHoldItsDedupKey() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            SendOptions options = SendOptions.builder().dedupKey("once").build();
            SendResult first = template.send("emails", "a", options);
            jdbc.update("UPDATE pgqueue.job SET state = 'dead' WHERE id = ?", first.jobId());

            assertThat(template.send("emails", "b", options).created()).isTrue();
        });
    }

    @Test
    void concurrentSendsWithOneDedupKeyInsertExactlyOneRow() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            SendOptions options = SendOptions.builder().dedupKey("race").build();
            int threads = 8;
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<SendResult>> futures = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    int n = i;
                    Callable<SendResult> send = () -> {
                        start.await();
                        return template.send("emails", "attempt " + n, options);
                    };
                    futures.add(pool.submit(send));
                }
                start.countDown();
                List<SendResult> results = new ArrayList<>();
                for (Future<SendResult> future : futures) {
                    results.add(future.get());
                }

                assertThat(results).filteredOn(SendResult::created).hasSize(1);
                assertThat(results).filteredOn(SendResult::duplicate).hasSize(threads - 1);
                assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE dedup_key = 'race'",
                        Long.class)).isOne();
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void invalidQueueNamesAreRejectedWithAClearMessage() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);

            assertThatIllegalArgumentException().isThrownBy(() -> template.send(" ", "x"))
                .withMessage("Queue name must not be blank");
            assertThatIllegalArgumentException().isThrownBy(() -> template.send("emails'; DROP TABLE job; --", "x"))
                .withMessageStartingWith("Invalid queue name 'emails'; DROP TABLE job; --'")
                .withMessageContaining("letters, digits and . _ - :");
            assertThatIllegalArgumentException().isThrownBy(() -> template.send("q".repeat(129), "x"))
                .withMessageContaining("1 to 128 characters");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class)).isZero();
        });
    }

    @Test
    void valuesThatLookLikeSqlAreStoredVerbatim() {
        runner.run((context) -> {
            String hostile = "x'); DROP TABLE pgqueue.job; --";
            SendResult result = context.getBean(QueueTemplate.class)
                .send("emails", hostile,
                        SendOptions.builder().dedupKey(hostile).groupKey(hostile).header("h", hostile).build());

            Map<String, Object> row = jdbc.queryForMap("SELECT payload #>> '{}' AS payload, dedup_key, group_key, "
                    + "headers->>'h' AS header FROM pgqueue.job WHERE id = ?", result.jobId());
            assertThat(row.values()).containsOnly(hostile);
        });
    }

    @Test
    void oversizedPayloadIsRejectedWithItsSize() {
        runner.withPropertyValues("pgqueue.template.max-payload-size=1KB").run((context) -> {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> context.getBean(QueueTemplate.class).send("emails", "x".repeat(2000)))
                .withMessage("Payload for queue 'emails' is 2002 bytes of JSON, more than the limit of 1024 bytes "
                        + "(pgqueue.template.max-payload-size)");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class)).isZero();
        });
    }

    @Test
    void payloadThatCannotBeWrittenAsJsonIsRejected() {
        runner.run((context) -> {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> context.getBean(QueueTemplate.class).send("emails", new Unwritable()))
                .withMessageStartingWith("Payload of type " + Unwritable.class.getName()
                        + " for queue 'emails' cannot be written as JSON");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class)).isZero();
        });
    }

    /**
     * Objects with no data Jackson can see were stored as {@code {}} (with Boot's mapper, which writes empty beans),
     * and the job went dead later with a hint pointing elsewhere: they are refused at send.
     */
    @Test
    void payloadsWithoutDataAreRefusedAtSend() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            assertThatIllegalArgumentException().isThrownBy(() -> template.send("emails", new PrivateFieldsOnly()))
                .withMessageStartingWith("Payload of type " + PrivateFieldsOnly.class.getName()
                        + " for queue 'emails' cannot be written as JSON");
            assertThatIllegalArgumentException()
                .isThrownBy(() -> template.send("emails", Map.of("in", new java.io.ByteArrayInputStream(new byte[1]))))
                .withMessageContaining("cannot be written as JSON");
            assertThatIllegalArgumentException()
                .isThrownBy(() -> template.sendBatch("emails", List.of(new WelcomeEmail(1, "a@example.com"),
                        new PrivateFieldsOnly())))
                .withMessageContaining(PrivateFieldsOnly.class.getName());
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class)).isZero();

            // a record without components is data all the same
            long ping = template.send("emails", new Ping());
            assertThat(jdbc.queryForObject("SELECT payload::text FROM pgqueue.job WHERE id = ?", String.class, ping))
                .isEqualTo("{}");
        });
    }

    /** A class whose state Jackson cannot see: no getters, no annotations. */
    public static class PrivateFieldsOnly {

        private final String secret = "s";

        @Override
        public String toString() {
            return secret;
        }
    }

    public record Ping() {
    }

    @Test
    void countersRecordEveryInsertInTheSameStatement() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.sendBatch("counted", List.of(1, 2, 3));
            template.send("counted", 4, SendOptions.builder().delay(Duration.ofHours(1)).build());
            template.send("counted", 5, SendOptions.builder().dedupKey("d").build());
            template.send("counted", 6, SendOptions.builder().dedupKey("d").build());

            Map<String, Object> sums = jdbc.queryForMap("SELECT sum(ready) AS ready, sum(scheduled) AS scheduled, "
                    + "sum(enqueued) AS enqueued FROM pgqueue.queue_counter_delta WHERE queue = 'counted'");
            assertThat(sums).containsEntry("ready", java.math.BigDecimal.valueOf(4))
                .containsEntry("scheduled", java.math.BigDecimal.ONE)
                .containsEntry("enqueued", java.math.BigDecimal.valueOf(5));
        });
    }


    public static class Unwritable {

        public String getValue() {
            throw new IllegalStateException("cannot be read");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SignupServiceConfiguration {

        @Bean
        SignupService signupService(QueueTemplate template) {
            return new SignupService(template);
        }
    }

    static class SignupService {

        private final QueueTemplate template;

        SignupService(QueueTemplate template) {
            this.template = template;
        }

        @Transactional
        public long register(String address) {
            return template.send("emails", new WelcomeEmail(1, address));
        }

        @Transactional
        public void registerThenFail(String address) {
            template.send("emails", new WelcomeEmail(1, address));
            throw new IllegalStateException("signup failed after enqueue");
        }
    }
}
