package io.pgqueue.dashboard;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import io.pgqueue.workflow.WorkflowSubmission;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard in a real browser (headless Chromium through Selenium), signed in as an operator of an
 * application that turned its actions on: counts that move as jobs are sent, a dead job retried from its page,
 * dead jobs purged in bulk, a job cancelled, a queue paused and resumed, a schedule paused and triggered, the
 * nodes page; and the screenshots the dashboard guide shows.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "pgqueue.dashboard.read-only=false", "pgqueue.dashboard.show-payloads=true",
                "pgqueue.dashboard.refresh-interval=300ms", "pgqueue.listener.poll-interval=200ms",
                "pgqueue.history.enabled=true", "pgqueue.schedules.nightly-report.queue=reports",
                "pgqueue.health.vacuum-hold-warning=2s", "pgqueue.health.vacuum-check-interval=200ms",
                "pgqueue.schedules.nightly-report.cron=0 0 2 * * *",
                "pgqueue.schedules.nightly-report.payload={\"kind\":\"nightly\"}" })
class DashboardBrowserTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DashboardBrowserTests.class);

    private static Browser browser;

    @LocalServerPort
    int port;

    @Autowired
    QueueTemplate queues;

    @Autowired
    QueueAdmin admin;

    @Autowired
    WorkflowOperations workflows;

    @Autowired
    BatchOperations batches;

    @Autowired
    DashboardTestApplication.Listeners listeners;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        TestDatabases.register(registry, database);
    }

    @BeforeAll
    static void noBrowserYet() {
        browser = null;
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    private Browser browser() {
        if (browser == null) {
            browser = Browser.open(port).signIn("ops", DashboardTestApplication.PASSWORD);
        }
        return browser;
    }

    private static By cell(String queue, String column) {
        return By.cssSelector("td[data-queue='" + queue + "'][data-col='" + column + "']");
    }

    @Test
    void overviewCountsMoveAsJobsAreSent() {
        Browser page = browser().open("#/");
        queues.sendBatch("inbox", java.util.List.of(Map.of("n", 1), Map.of("n", 2), Map.of("n", 3)));
        page.waitForText(cell("inbox", "ready"), "3");
        queues.sendBatch("inbox", java.util.List.of(Map.of("n", 4), Map.of("n", 5)));
        page.waitForText(cell("inbox", "ready"), "5");
        queues.send("inbox", Map.of("n", 6), SendOptions.builder().delay(Duration.ofHours(1)).build());
        page.waitForText(cell("inbox", "scheduled"), "1");
        assertThat(Long.parseLong(page.text(By.id("cluster-ready")).replace(",", ""))).isGreaterThanOrEqualTo(5);
        // ready jobs and no node listening: highlighted, with the likely cause in its title
        page.waitFor((driver) -> driver.findElement(By.cssSelector("tr[data-queue-row='inbox'] [data-unattended]")));
        // read through waitFor: the page re-renders every 300 ms, and an element found may be replaced before it is read
        String rowClass = page.waitFor((driver) -> driver.findElement(By.cssSelector("tr[data-queue-row='inbox']"))
            .getAttribute("class"));
        assertThat(rowClass).contains("unattended");
        String title = page.waitFor((driver) -> driver.findElement(By.cssSelector("tr[data-queue-row='inbox'] [data-unattended]"))
            .getAttribute("title"));
        assertThat(title).contains("Spring bean");
        page.screenshot("unattended-queue");
    }

    @Test
    void anEmptyListSaysWhetherNothingMatchesOrNothingExistsYet() {
        Browser page = browser().open("#/workflows?name=no-such-workflow");
        page.waitForText(By.cssSelector("[data-empty]"), "No workflow matches.");
        page.open("#/batches?name=no-such-batch");
        page.waitForText(By.cssSelector("[data-empty]"), "No batch matches.");
    }

    @Test
    void aTransactionHoldingBackVacuumIsNamedOnTheOverviewUntilItEnds() throws Exception {
        Browser page = browser().open("#/");
        page.waitFor((driver) -> driver.findElement(By.id("cluster-ready")));
        String shown = page.waitFor((driver) -> String.valueOf(driver.findElement(By.id("vacuum-hold")).isDisplayed()));
        assertThat(shown).isEqualTo("false");
        try (java.sql.Connection report = database.connect()) {
            report.setAutoCommit(false);
            report.setTransactionIsolation(java.sql.Connection.TRANSACTION_REPEATABLE_READ);
            int pid;
            try (java.sql.Statement statement = report.createStatement();
                    java.sql.ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
                rows.next();
                pid = rows.getInt(1);
            }
            page.waitFor((driver) -> driver.findElement(By.id("vacuum-hold")).isDisplayed());
            assertThat(page.text(By.id("vacuum-hold"))).contains("transaction", "(pid " + pid + ")",
                    "has held back vacuum for");
            page.screenshot("vacuum-hold");
            report.rollback();
        }
        page.waitFor((driver) -> !driver.findElement(By.id("vacuum-hold")).isDisplayed());
    }

    @Test
    void aQueueWithAListenerAndNoJobsIsOnTheOverviewWithItsListener() {
        Browser page = browser().open("#/");
        page.waitFor((driver) -> driver.findElement(cell("idle", "listeners")));
        assertThat(page.text(cell("idle", "ready"))).isEqualTo("0");
        assertThat(page.text(cell("idle", "dead"))).isEqualTo("0");
        ClusterNode node = admin.nodes().get(0);
        page.waitForText(cell("idle", "listeners"), node.host() + " (" + node.pid() + ")");
    }

    @Test
    void deadJobIsRetriedFromItsPageAndLeavesTheDeadList() {
        long id = queues.send("flaky", Map.of("name", "invoice-41"));
        await().atMost(Duration.ofSeconds(15)).until(() -> admin.job(id).state() == JobState.DEAD);

        Browser page = browser().open("#/queues/flaky/dead");
        page.click(By.cssSelector("a[data-job-link='" + id + "']"));
        page.waitForText(By.cssSelector("h1 [data-badge]"), "dead");
        assertThat(page.text(By.id("last-error"))).contains("The invoice service refused invoice-41 (HTTP 503)");
        assertThat(page.text(By.id("payload"))).contains("\"name\": \"invoice-41\"").contains("\n");
        page.click(By.cssSelector("button[data-action='retry']"));

        await().atMost(Duration.ofSeconds(15)).until(() -> admin.job(id).state() == JobState.COMPLETED);
        page.waitForText(By.cssSelector("h1 [data-badge]"), "completed");
        assertThat(page.text(By.id("output"))).contains("\"sent\": \"invoice-41\"");
        page.open("#/queues/flaky/dead");
        page.waitFor((driver) -> driver.findElement(By.id("dead-jobs")));
        assertThat(page.all(By.cssSelector("tr[data-job='" + id + "']"))).isEmpty();
        assertThat(listeners.flakyRuns.get("invoice-41")).hasValue(2);
    }

    @Test
    void deadJobsAreRetriedAndPurgedInBulk() {
        long first = queues.send("flaky", Map.of("name", "bulk-1"));
        long second = queues.send("flaky", Map.of("name", "bulk-2"));
        long third = queues.send("flaky", Map.of("name", "bulk-3"), SendOptions.builder().header("tenant", "t9").build()).jobId();
        await().atMost(Duration.ofSeconds(15)).until(() -> admin.job(first).state() == JobState.DEAD
                && admin.job(second).state() == JobState.DEAD && admin.job(third).state() == JobState.DEAD);

        Browser page = browser().open("#/queues/flaky/dead");
        page.click(By.cssSelector("input[data-select='" + first + "']"));
        page.click(By.cssSelector("input[data-select='" + second + "']"));
        page.click(By.cssSelector("button[data-bulk='retry-selected']"));
        await().atMost(Duration.ofSeconds(15)).until(() -> admin.job(first).state() == JobState.COMPLETED
                && admin.job(second).state() == JobState.COMPLETED);
        assertThat(admin.job(third).state()).isEqualTo(JobState.DEAD);

        // everything matching a filter: only the t9 job
        page.open("#/queues/flaky/dead?header=tenant%3At9");
        page.waitFor((driver) -> driver.findElement(By.cssSelector("tr[data-job='" + third + "']")));
        page.click(By.cssSelector("button[data-bulk='purge-all']"));
        page.confirm();
        page.waitFor((driver) -> driver.findElement(By.cssSelector(".flash.ok")).getText().contains("1 changed"));
        assertThat(admin.jobs(JobQuery.queue("flaky").states(JobState.DEAD).header("tenant", "t9").build()).jobs())
            .isEmpty();
    }

    @Test
    void jobIsCancelledFromItsPage() {
        long id = queues.send("later", Map.of("n", "later"), SendOptions.builder().delay(Duration.ofHours(2)).build())
            .jobId();
        Browser page = browser().open("#/jobs/" + id);
        page.waitForText(By.cssSelector("h1 [data-badge]"), "scheduled");
        page.click(By.cssSelector("button[data-action='cancel']"));
        page.confirm();
        page.waitForText(By.cssSelector("h1 [data-badge]"), "cancelled");
        assertThat(admin.job(id).state()).isEqualTo(JobState.CANCELLED);
        assertThat(page.all(By.cssSelector("button[data-action]"))).isEmpty();
    }

    @Test
    void pausingAQueueStopsItsClaimsUntilResumed() {
        queues.send("work", Map.of("warm", true));
        await().atMost(Duration.ofSeconds(15)).until(() -> listeners.work.get() >= 1);
        Browser page = browser().open("#/");
        page.click(By.cssSelector("button[data-action='pause'][data-queue='work']"));
        page.waitFor((driver) -> driver.findElement(By.cssSelector("tr[data-queue-row='work'] [data-badge='paused']")));
        assertThat(admin.isPaused("work")).isTrue();

        int handled = listeners.work.get();
        queues.sendBatch("work", java.util.List.of(Map.of("n", 1), Map.of("n", 2), Map.of("n", 3), Map.of("n", 4)));
        page.waitForText(cell("work", "ready"), "4");
        // several poll intervals (200 ms) and wake-ups later, nothing was claimed
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
            .until(() -> listeners.work.get() == handled && admin.queue("work").orElseThrow().counts().ready() == 4);

        page.click(By.cssSelector("button[data-action='resume'][data-queue='work']"));
        await().atMost(Duration.ofSeconds(15)).until(() -> listeners.work.get() == handled + 4);
        page.waitForText(cell("work", "ready"), "0");
    }

    @Test
    void schedulesArePausedAndTriggered() {
        Browser page = browser().open("#/schedules");
        By row = By.cssSelector("tr[data-schedule='nightly-report']");
        page.waitFor((driver) -> driver.findElement(row));
        page.click(By.cssSelector("tr[data-schedule='nightly-report'] button[data-action='pause']"));
        page.waitFor((driver) -> driver.findElement(By.cssSelector("tr[data-schedule='nightly-report'] [data-badge='paused']")));
        assertThat(admin.schedules()).anySatisfy((schedule) -> {
            assertThat(schedule.name()).isEqualTo("nightly-report");
            assertThat(schedule.paused()).isTrue();
        });
        page.click(By.cssSelector("tr[data-schedule='nightly-report'] button[data-action='trigger']"));
        await().atMost(Duration.ofSeconds(10))
            .until(() -> admin.queue("reports").map((stats) -> stats.counts().enqueued()).orElse(0L) == 1);
        page.click(By.cssSelector("tr[data-schedule='nightly-report'] button[data-action='resume']"));
        page.waitFor((driver) -> driver.findElement(
                By.cssSelector("tr[data-schedule='nightly-report'] button[data-action='pause']")));
    }

    @Test
    void nodesPageShowsContainersWithTheirSettings() {
        Browser page = browser().open("#/nodes");
        page.waitFor((driver) -> driver.findElement(By.cssSelector("tr[data-container='work-1']")));
        String row = page.text(By.cssSelector("tr[data-container='work-1']"));
        assertThat(row).contains("work").contains("LEASE").contains("2");
        assertThat(page.text(By.cssSelector("tr[data-container='flaky-1']"))).contains("flaky");
    }

    @Test
    void aSleepingJobShowsItsStepsAndWhatItWaitsForAndIsWokenFromItsPage() {
        long id = queues.send("durable", Map.of("order", 12));
        await().atMost(Duration.ofSeconds(10)).until(() -> admin.waitOf(id).isPresent());
        Browser page = browser().open("#/jobs/" + id);
        assertThat(page.text(By.cssSelector("#waiting-for"))).startsWith("sleep until in ");
        assertThat(page.all(By.cssSelector("#steps tbody tr"))).hasSize(2);
        assertThat(page.text(By.cssSelector("#steps tbody tr:first-child"))).contains("charge").contains("\"ch_12\"");
        assertThat(page.screenshot("durable-job")).exists();
        page.click(By.cssSelector("button[data-action='wake']"));
        page.confirm();
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.durableDone.contains("12"));
    }

    @Test
    void aWorkflowIsDrawnWithItsNodesStatesAndCancelledFromItsPage() {
        WorkflowSubmission order = workflows.submit(Workflow.builder("order-77")
            .node(WorkflowNode.of("charge", "orders-wf", Map.of("order", 77)))
            .node(WorkflowNode.of("reserve", "orders-wf", Map.of("order", 77)))
            .node(WorkflowNode.of("ship", "shipping-wf", Map.of("order", 77)).after("charge", "reserve"))
            .node(WorkflowNode.of("invoice", "billing-wf", Map.of("order", 77)).after("charge"))
            .node(WorkflowNode.of("notify", "mail-wf", Map.of("order", 77)).after("ship", "invoice"))
            .build());
        Browser page = browser().open("#/workflows/" + order.id());
        page.waitFor((driver) -> driver.findElement(By.cssSelector("[data-graph-node='ship']")).getAttribute("data-state")
            .equals("ready"));
        assertThat(page.all(By.cssSelector("#workflow-graph .wf-edge"))).hasSize(5);
        assertThat(page.text(By.cssSelector("[data-count='completed'] .value"))).isEqualTo("2");
        assertThat(page.all(By.cssSelector("[data-graph-node='notify'][data-state='waiting']"))).hasSize(1);
        assertThat(page.screenshot("workflow")).exists();

        page.open("#/jobs/" + order.jobId("notify"));
        page.click(By.cssSelector("[data-workflow-link]"));
        page.waitForText(By.cssSelector("h1 [data-badge]"), "running");
        page.click(By.cssSelector("button[data-action='cancel-workflow']"));
        page.confirm();
        page.waitForText(By.cssSelector("h1 [data-badge]"), "cancelled");
        assertThat(admin.workflow(order.id()).orElseThrow().counts().cancelled()).isEqualTo(3);
        page.open("#/workflows?state=cancelled");
        page.waitFor((driver) -> !driver.findElements(By.cssSelector("tr[data-workflow='" + order.id() + "']")).isEmpty());
    }

    @Test
    void aBatchShowsItsProgressCallbacksAndMembersAndIsCancelledFromItsPage() {
        long id = batches.open(Batch.builder("import-9").property("file", "customers.csv")
            .onComplete("orders-wf").onCannotSucceed("orders-wf").build());
        batches.addAll(id, "work", List.of(Map.of("row", 1), Map.of("row", 2), Map.of("row", 3)));
        batches.add(id, "flaky", Map.of("name", "row-4"));
        List<Long> later = batches.addAll(id, "batch-later", List.of(Map.of("row", 5), Map.of("row", 6)),
                SendOptions.builder().delay(Duration.ofHours(1)).build()).jobIds();
        batches.seal(id);
        Browser page = browser().open("#/batches/" + id);
        page.waitForText(By.cssSelector("[data-count='completed'] .value"), "3");
        page.waitForText(By.cssSelector("[data-count='dead'] .value"), "1");
        page.waitForText(By.cssSelector("tr[data-callback='cannot_succeed'] [data-badge]"), "fired");
        assertThat(page.text(By.cssSelector("tr[data-callback='complete']"))).contains("pending");
        assertThat(page.all(By.cssSelector("#batch-members tr[data-member]"))).hasSize(3);
        assertThat(page.text(By.id("batch-progress"))).contains("67 % finished");
        assertThat(page.screenshot("batch")).exists();

        page.open("#/jobs/" + later.get(0));
        page.click(By.cssSelector("[data-batch-link]"));
        page.waitForText(By.cssSelector("h1 [data-badge]"), "running");
        page.click(By.cssSelector("button[data-action='cancel-batch']"));
        page.confirm();
        page.waitForText(By.cssSelector("h1 [data-badge]"), "cancelled");
        assertThat(admin.batch(id).orElseThrow().counts().cancelled()).isEqualTo(2);
        page.open("#/batches?state=cancelled");
        page.waitFor((driver) -> !driver.findElements(By.cssSelector("tr[data-batch='" + id + "']")).isEmpty());
        // a list's bar says how far in words too: all four members finished (3 completed... 1 dead... cancelled)
        assertThat(page.text(By.cssSelector("tr[data-batch='" + id + "'] [data-progress-label]"))).endsWith("finished");
    }

    @Test
    void aQueuesFairnessKeysShowTheirBacklogAndOneIsPausedFromThePage() {
        queues.sendBatch("tenants", java.util.stream.IntStream.range(0, 30).mapToObj((n) -> io.pgqueue.JobRequest.of(
                Map.of("n", n), SendOptions.builder().fairnessKey((n % 3 == 0) ? "tenant-b" : "tenant-a").build()))
            .toList());
        admin.setFairnessWeight("tenants", "tenant-a", 3);
        Browser page = browser().open("#/queues/tenants");
        page.waitForText(By.cssSelector("#fairness-keys tr[data-key='tenant-a'] td:nth-child(4)"), "20");
        assertThat(page.text(By.cssSelector("#fairness-keys tr[data-key='tenant-a']"))).contains("3");
        // the weight in force, and where it comes from (tenant-b has none of its own: the queue's default, 1)
        assertThat(page.text(By.cssSelector("#fairness-keys tr[data-key='tenant-a']"))).contains("3 (set at run time)");
        assertThat(page.text(By.cssSelector("#fairness-keys tr[data-key='tenant-b']"))).contains("10", "1 (configured)");
        page.click(By.cssSelector("#fairness-keys tr[data-key='tenant-b'] button[data-action='pause']"));
        page.waitFor((driver) -> !driver.findElements(By.cssSelector("#fairness-keys tr[data-key='tenant-b'] button[data-action='resume']")).isEmpty());
        assertThat(admin.fairnessKeys("tenants", 10)).filteredOn((key) -> key.key().equals("tenant-b"))
            .singleElement().satisfies((key) -> assertThat(key.paused()).isTrue());
        assertThat(page.screenshot("fairness")).exists();
    }

    /** The dashboard guide's pictures: the overview with throughput, and a job page; look at them in target/screenshots. */
    @Test
    void screenshotsForReadme() {
        Browser page = browser().open("#/");
        // a few seconds of growing traffic, so that the throughput chart has a line
        for (int round = 1; round <= 6; round++) {
            queues.sendBatch("work", java.util.stream.IntStream.range(0, 40 * round).mapToObj((n) -> Map.of("n", n))
                .toList());
            await().atMost(Duration.ofSeconds(15))
                .until(() -> admin.queue("work").orElseThrow().counts().ready() == 0);
            String shown = page.text(By.id("cluster-completed-rate"));
            page.waitFor((driver) -> !driver.findElement(By.id("cluster-completed-rate")).getText().equals(shown));
        }
        queues.send("flaky", Map.of("name", "invoice-7"));
        await().atMost(Duration.ofSeconds(15))
            .until(() -> admin.queue("flaky").orElseThrow().counts().dead() >= 1);
        page.waitFor((driver) -> driver.findElements(By.cssSelector(".chart polyline")).size() == 2);
        assertThat(page.screenshot("overview")).exists();

        JobInfo dead = admin.jobs(JobQuery.queue("flaky").states(JobState.DEAD).build()).jobs().get(0);
        page.open("#/jobs/" + dead.id());
        page.waitForText(By.cssSelector("h1 [data-badge]"), "dead");
        assertThat(page.screenshot("job")).exists();
    }
}
