package io.pgqueue.dashboard;

import java.util.Map;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
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
 * The dashboard as it comes (read-only, payloads masked), in a real browser, signed in as an operator: no
 * action is offered, the page says how to turn them on, and an action posted anyway is refused.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "pgqueue.dashboard.refresh-interval=300ms")
class DashboardReadOnlyTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DashboardReadOnlyTests.class);

    private static Browser browser;

    @LocalServerPort
    int port;

    @Autowired
    QueueTemplate queues;

    @Autowired
    QueueAdmin admin;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        TestDatabases.register(registry, database);
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @Test
    void readOnlyDashboardHidesAndRefusesActions() {
        long id = queues.send("quiet", Map.of("card", "4111 1111 1111 1111"));
        browser = Browser.open(port).signIn("ops", DashboardTestApplication.PASSWORD);
        browser.open("#/");
        browser.waitForText(By.cssSelector("td[data-queue='quiet'][data-col='ready']"), "1");
        assertThat(browser.all(By.cssSelector("button[data-action]"))).isEmpty();
        assertThat(browser.text(By.id("banner"))).contains("read-only")
            .contains("pgqueue.dashboard.read-only=false");
        assertThat(browser.text(By.id("who"))).contains("ops").contains("read-only");

        browser.open("#/jobs/" + id);
        browser.waitForText(By.cssSelector("h1 [data-badge]"), "ready");
        assertThat(browser.all(By.cssSelector("button[data-action]"))).isEmpty();
        assertThat(browser.text(By.id("payload"))).isEqualTo("******").doesNotContain("4111");

        browser.open("#/queues/quiet/dead");
        browser.waitFor((driver) -> driver.findElement(By.id("dead-jobs")));
        assertThat(browser.all(By.cssSelector("button[data-bulk]"))).isEmpty();

        // an action posted anyway, with the page's CSRF token: refused, saying why
        Object answer = ((org.openqa.selenium.JavascriptExecutor) browser.driver()).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const header = document.querySelector('meta[name="pgqueue-csrf-header"]').content;
                const token = document.querySelector('meta[name="pgqueue-csrf-token"]').content;
                fetch('/pgqueue/api/queues/quiet/pause', { method: 'POST', headers: { [header]: token } })
                    .then((r) => r.json().then((body) => done(r.status + ' ' + body.error)));
                """);
        assertThat(String.valueOf(answer)).startsWith("403 The pgqueue dashboard is read-only");
        assertThat(admin.isPaused("quiet")).isFalse();
    }
}
