package io.pgqueue.internal.schema;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.util.ClassUtils;

/**
 * Tells Boot that pgqueue's schema beans initialise the database, ordered before Flyway (0), Liquibase and
 * {@code spring.sql.init}: the queue tables exist before the application's own migrations run, so those
 * can enqueue jobs, and before any bean that depends on database initialisation.
 */
public class QueueDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        // the initializer's class needs Flyway: name it only when Flyway is there
        if (ClassUtils.isPresent("org.flywaydb.core.Flyway", getClass().getClassLoader())) {
            return Set.of(QueueSchemaInitializer.class, QueueSchemaValidator.class);
        }
        return Set.of(QueueSchemaValidator.class);
    }

    @Override
    public int getOrder() {
        return -100;
    }
}
