package io.pgqueue.dashboard;

import io.pgqueue.testsupport.TestDatabase;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Points a test application's DataSource at its test database.
 */
final class TestDatabases {

    private TestDatabases() {
    }

    static void register(DynamicPropertyRegistry registry, TestDatabase database) {
        registry.add("spring.datasource.url", database::jdbcUrl);
        registry.add("spring.datasource.username", database::username);
        registry.add("spring.datasource.password", database::password);
    }
}
