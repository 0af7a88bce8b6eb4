package io.pgqueue.internal.persistence;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nodes starting at once on a fresh extra database each make its identity columns draw from the database's id
 * block. Each takes the migration's lock and reads the bounds again under it, so that no node restarts a sequence
 * after another one has handed out ids from it: no id is handed out twice.
 */
class IdBlockRaceTests {

    private static final TestDatabase database = TestPostgres.createDatabase(IdBlockRaceTests.class);

    private static final long FIRST = 3L << 48;

    private static final long LAST = (4L << 48) - 1;

    private static final String SEND = "INSERT INTO pgqueue.job (queue, state, payload) VALUES ('id-block', 'ready', '1') "
            + "RETURNING id";

    @Test
    void aNodeThatReadTheBoundsBeforeAnotherSetThemDoesNotRestartTheSequence() throws Exception {
        DataSource plain = database.dataSource();
        JdbcTemplate jdbc = new JdbcTemplate(plain);
        // the schema, migrated by a first start
        io.pgqueue.support.QueueContextRunners.on(database).withPropertyValues("pgqueue.listener.auto-startup=false")
            .run((context) -> assertThat(context).hasNotFailed());
        CountDownLatch slowNodeChanging = new CountDownLatch(1);
        CountDownLatch firstNodeSent = new CountDownLatch(1);
        // the slow node: it has read the bounds, and its change reaches the server only after the other node sent
        DataSource slow = new DelegatingDataSource(plain) {
            @Override
            public Connection getConnection() throws java.sql.SQLException {
                Connection connection = super.getConnection();
                return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
                        (proxy, method, args) -> {
                            if (method.getName().equals("prepareStatement") && args[0].toString().contains("ALTER TABLE")) {
                                slowNodeChanging.countDown();
                                // bounded: with the migration's lock held here, the other node cannot send first
                                firstNodeSent.await(2, TimeUnit.SECONDS);
                            }
                            try {
                                return method.invoke(connection, args);
                            }
                            catch (java.lang.reflect.InvocationTargetException ex) {
                                throw ex.getCause();
                            }
                        });
            }
        };
        SchemaRepository slowNode = repositories(slow).schemaInfo();
        SchemaRepository fastNode = repositories(plain).schemaInfo();

        CompletableFuture<Long> slowSend = CompletableFuture.supplyAsync(() -> {
            slowNode.useIdBlock(FIRST, LAST, Duration.ofSeconds(10));
            return jdbc.queryForObject(SEND, Long.class);
        });
        // the fast node starts once the slow one has read the bounds and is about to change them
        assertThat(slowNodeChanging.await(10, TimeUnit.SECONDS)).isTrue();
        fastNode.useIdBlock(FIRST, LAST, Duration.ofSeconds(10));
        long fastId = jdbc.queryForObject(SEND, Long.class);
        firstNodeSent.countDown();
        long slowId = slowSend.get(30, TimeUnit.SECONDS);

        assertThat(fastId).isBetween(FIRST, LAST);
        assertThat(slowId).isBetween(FIRST, LAST).isNotEqualTo(fastId);
        assertThat(jdbc.queryForObject("SELECT count(DISTINCT id) FROM pgqueue.job WHERE queue = 'id-block'", Long.class))
            .isEqualTo(2);
    }

    private static Repositories repositories(DataSource dataSource) {
        return new Repositories(dataSource, new Schema("pgqueue"), "pgqueue_schema_history", true, false,
                Duration.ofSeconds(10));
    }
}
