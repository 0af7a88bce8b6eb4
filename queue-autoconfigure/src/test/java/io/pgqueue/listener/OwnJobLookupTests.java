package io.pgqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobState;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A TRANSACTIONAL handler that looks its own job up: its claim deleted the row in the handler's transaction
 * (and, with history on, wrote it as completed), so a lookup joining that transaction found it gone (history off:
 * "no such job") or completed while it ran. It is answered as running, as the claim took it.
 */
class OwnJobLookupTests {

    private static final TestDatabase database = TestPostgres.createDatabase(OwnJobLookupTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    static class SelfLookingHandler {

        final Map<String, Object> seen = new ConcurrentHashMap<>();

        private final QueueAdmin admin;

        SelfLookingHandler(@Lazy QueueAdmin admin) {
            this.admin = admin;
        }

        @QueueListener(queue = "own-lookup", mode = "TRANSACTIONAL")
        void handle(String payload, JobContext context) {
            try {
                seen.put(payload, admin.job(context.id()));
            }
            catch (RuntimeException ex) {
                seen.put(payload, ex);
            }
        }
    }

    @Test
    void aTransactionalHandlerSeesItsOwnJobRunningWithHistoryOff() {
        ownJobIsRunning("false");
    }

    @Test
    void aTransactionalHandlerSeesItsOwnJobRunningWithHistoryOn() {
        ownJobIsRunning("true");
    }

    private void ownJobIsRunning(String history) {
        runner.withPropertyValues("pgqueue.history.enabled=" + history).withBean(SelfLookingHandler.class)
            .run((context) -> {
                SelfLookingHandler handler = context.getBean(SelfLookingHandler.class);
                BatchOperations batches = context.getBean(BatchOperations.class);
                long batch = batches.open(Batch.builder("own-" + history).build());
                long member = batches.add(batch, "own-lookup", "member").jobId();
                long plain = context.getBean(QueueTemplate.class)
                    .send("own-lookup", "plain", SendOptions.builder().priority(7).groupKey("g-1").build()).jobId();

                await().atMost(Duration.ofSeconds(10)).until(() -> handler.seen.size() == 2);
                assertThat(handler.seen.get("member")).isInstanceOf(JobInfo.class);
                JobInfo seenMember = (JobInfo) handler.seen.get("member");
                assertThat(seenMember.id()).isEqualTo(member);
                assertThat(seenMember.state()).isEqualTo(JobState.RUNNING);
                assertThat(seenMember.attempts()).isEqualTo(1);
                assertThat(seenMember.batchId()).isEqualTo(batch);
                assertThat(seenMember.finishedAt()).isNull();
                JobInfo seenPlain = (JobInfo) handler.seen.get("plain");
                assertThat(seenPlain.id()).isEqualTo(plain);
                assertThat(seenPlain.state()).isEqualTo(JobState.RUNNING);
                assertThat(seenPlain.priority()).isEqualTo(7);
                assertThat(seenPlain.groupKey()).isEqualTo("g-1");
                assertThat(seenPlain.attemptedAt()).isNotNull();
            });
    }
}
