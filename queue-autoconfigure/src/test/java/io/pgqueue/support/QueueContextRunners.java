package io.pgqueue.support;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.testsupport.TestDatabase;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Context runners with the auto-configurations a Boot application has around pgqueue, on a test database.
 */
public final class QueueContextRunners {

    private QueueContextRunners() {
    }

    /** A small Hikari pool on the database, e.g. to wrap in a {@link StatementCounter}. */
    public static HikariDataSource pool(TestDatabase database) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(database.jdbcUrl());
        dataSource.setUsername(database.username());
        dataSource.setPassword(database.password());
        dataSource.setMaximumPoolSize(4);
        return dataSource;
    }

    /** Points a {@code @SpringBootTest}'s DataSource at the test database. */
    public static void registerDataSource(DynamicPropertyRegistry registry, TestDatabase database) {
        registry.add("spring.datasource.url", database::jdbcUrl);
        registry.add("spring.datasource.username", database::username);
        registry.add("spring.datasource.password", database::password);
    }

    public static ApplicationContextRunner on(TestDatabase database) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    PgQueueAutoConfiguration.class))
            .withPropertyValues(database.springProperties())
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=12");
    }

    /**
     * As {@link #on(TestDatabase)}, with listener timing shortened so that tests of polling, leases, rescue and
     * retries finish in seconds.
     */
    public static ApplicationContextRunner fastListeners(TestDatabase database) {
        return on(database).withPropertyValues("pgqueue.listener.poll-interval=200ms",
                "pgqueue.listener.heartbeat-interval=200ms", "pgqueue.listener.lease-duration=2s",
                "pgqueue.listener.node-timeout=1s", "pgqueue.listener.shutdown-timeout=5s",
                "pgqueue.listener.backoff.initial=20ms", "pgqueue.listener.backoff.jitter=0");
    }
}
