package io.pgqueue.internal.persistence;

import java.util.HashSet;
import java.util.Set;

import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A TRANSACTIONAL claim taken back ({@link Transition#CLAIM_RESTORE}) puts its rows back from the claimed jobs
 * and the rest of each row that the claim returned: together they must be every column of the job table, so that
 * a column a later version adds cannot be forgotten (and silently reset) when a claim is taken back.
 */
class ClaimRestoreColumnsTests {

    private static final TestDatabase database = TestPostgres.createDatabase(ClaimRestoreColumnsTests.class);

    @Test
    void theRestoreWritesEveryColumnOfTheJobTableWithItsType() {
        QueueContextRunners.on(database).run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            Set<String> restored = new HashSet<>(JobColumns.RESTORED_FROM_JOB);
            restored.add("state");
            restored.addAll(JobColumns.RESTORED_FROM_REST.keySet());
            assertThat(restored).hasSize(JobColumns.RESTORED_FROM_JOB.size() + 1
                    + JobColumns.RESTORED_FROM_REST.size());
            assertThat(jdbc.queryForList("SELECT column_name FROM information_schema.columns "
                    + "WHERE table_schema = 'pgqueue' AND table_name = 'job'", String.class))
                .containsExactlyInAnyOrderElementsOf(restored);
            JobColumns.RESTORED_FROM_REST.forEach((column, type) -> assertThat(jdbc.queryForObject(
                    "SELECT format_type(atttypid, atttypmod) = format_type(?::regtype, NULL) FROM pg_attribute "
                            + "WHERE attrelid = 'pgqueue.job'::regclass AND attname = ?",
                    Boolean.class, type, column))
                .as("type of %s", column)
                .isTrue());
        });
    }
}
