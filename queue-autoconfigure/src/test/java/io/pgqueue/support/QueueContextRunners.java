package io.pgqueue.support;

import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.testsupport.TestDatabase;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/**
 * Context runners with the auto-configurations a Boot application has around pgqueue, on a test database.
 */
public final class QueueContextRunners {

    private QueueContextRunners() {
    }

    public static ApplicationContextRunner on(TestDatabase database) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    PgQueueAutoConfiguration.class))
            .withPropertyValues(database.springProperties())
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=12");
    }
}
