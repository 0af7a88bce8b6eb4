package io.pgqueue.dashboard;

import java.time.Duration;
import java.util.Map;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard of an application whose queues live in two databases: every queue of both on the overview,
 * a database column and each database's state, and a job of the second database found by its id.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "pgqueue.dashboard.refresh-interval=300ms", "pgqueue.databases.reporting.id-block=1",
                "pgqueue.databases.reporting.queues=reports" })
class DashboardSeveralDatabasesTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DashboardSeveralDatabasesTests.class);

    private static final TestDatabase reporting = TestPostgres.createDatabase("dashboard_reporting");

    private static Browser browser;

    @LocalServerPort
    int port;

    @Autowired
    QueueTemplate queues;

    @DynamicPropertySource
    static void databases(DynamicPropertyRegistry registry) {
        TestDatabases.register(registry, database);
        registry.add("pgqueue.databases.reporting.url", reporting::jdbcUrl);
        registry.add("pgqueue.databases.reporting.username", reporting::username);
        registry.add("pgqueue.databases.reporting.password", reporting::password);
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    private static By cell(String queue, String column) {
        return By.cssSelector("td[data-queue='" + queue + "'][data-col='" + column + "']");
    }

    @Test
    void everyQueueOfBothDatabasesIsOnTheOverviewWithItsDatabase() {
        queues.sendBatch("inbox", java.util.List.of(Map.of("n", 1), Map.of("n", 2)));
        long report = queues.send("reports", Map.of("month", "2026-10"), SendOptions.builder()
            .delay(Duration.ofHours(1)).build()).jobId();
        browser = Browser.open(port).signIn("ops", DashboardTestApplication.PASSWORD);
        Browser page = browser.open("#/");
        page.waitForText(cell("reports", "scheduled"), "1");
        page.waitForText(cell("inbox", "ready"), "2");
        assertThat(page.text(cell("reports", "database"))).isEqualTo("reporting");
        assertThat(page.text(cell("inbox", "database"))).isEqualTo("default");
        assertThat(page.text(By.id("database-default"))).isEqualTo("up");
        assertThat(page.text(By.id("database-reporting"))).isEqualTo("up");
        page.screenshot("several-databases");

        page.open("#/jobs/" + report);
        page.waitForText(By.cssSelector("h1 [data-badge]"), "scheduled");
    }
}
