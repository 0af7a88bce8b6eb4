package io.pgqueue.dashboard;

import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's auto-configuration moved to {@code io.pgqueue.dashboard.autoconfigure}: an application that
 * excluded it by its old name still starts, without the dashboard (Boot refuses to exclude a class that is no
 * auto-configuration, unless a replacement names it).
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.MOCK,
        properties = "spring.autoconfigure.exclude=io.pgqueue.dashboard.PgQueueDashboardAutoConfiguration")
class DashboardRenamedExclusionTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DashboardRenamedExclusionTests.class);

    @Autowired
    ApplicationContext context;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        TestDatabases.register(registry, database);
    }

    @Test
    void excludingTheOldNameStillExcludesTheDashboard() {
        assertThat(context.getBeanNamesForType(DashboardApiController.class)).isEmpty();
        assertThat(context.getBeanNamesForType(DashboardPageController.class)).isEmpty();
    }
}
