package io.pgqueue.reliability;

import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.testsupport.TestDatabase;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The test's own application beside the worker JVMs: it sends (and reads) but runs no maintenance or schedules. */
final class Publishers {

    private Publishers() {
    }

    static ApplicationContextRunner on(TestDatabase database) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                    PgQueueAutoConfiguration.class))
            .withPropertyValues(database.springProperties())
            .withPropertyValues("pgqueue.maintenance.enabled=false", "pgqueue.scheduler.enabled=false");
    }
}
