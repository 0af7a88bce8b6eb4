package io.pgqueue.sample;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.pgqueue.test.QueueTestSupport;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
// Close the application while its database still runs: left to the JVM shutdown hooks, the context and the
// test server stop concurrently and the listeners' final unregister waits out Hikari's connection timeout.
@DirtiesContext
@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
class SampleApplicationTests {

    private static final TestDatabase database = TestPostgres.createDatabase(SampleApplicationTests.class);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", database::jdbcUrl);
        registry.add("spring.datasource.username", database::username);
        registry.add("spring.datasource.password", database::password);
        registry.add("pgqueue.queues.bills.backoff.initial", () -> "100ms");
    }

    @LocalServerPort
    int port;

    @Autowired
    JsonMapper json;

    @Autowired
    ApplicationContext context;

    QueueTestSupport queues;

    @org.junit.jupiter.api.BeforeEach
    void queues() {
        queues = QueueTestSupport.of(context);
    }

    private final HttpClient http = HttpClient.newHttpClient();

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    @Test
    void aRequestsTraceIdIsInItsLogLineAndInTheLogLinesOfTheJobsItSent(
            org.springframework.boot.test.system.CapturedOutput output) throws Exception {
        HttpResponse<String> response = postReading(77, "1.25");
        assertThat(response.statusCode()).isEqualTo(200);
        java.util.regex.Pattern accepted = java.util.regex.Pattern
            .compile("\\[pgqueue-sample,([0-9a-f]{32}),[0-9a-f]{16}\\].*Reading of account 77 accepted as job (\\d+)");
        java.util.regex.Matcher request = await().atMost(Duration.ofSeconds(10))
            .until(() -> accepted.matcher(output.getOut()), java.util.regex.Matcher::find);
        String traceId = request.group(1);
        String jobId = request.group(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().lines()
            .anyMatch((line) -> line.contains("," + traceId + ",") && line.contains("for account 77 (job " + jobId + ")")));
    }

    @Test
    void postedReadingIsRecordedChargedAndBilled() throws Exception {
        HttpResponse<String> response = postReading(42, "3.5");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json.readTree(response.body());
        assertThat(body.get("queue").asString()).isEqualTo("meter-readings");
        long jobId = body.get("jobId").asLong();

        await().atMost(Duration.ofSeconds(20)).until(() -> jdbc
            .queryForObject("SELECT count(*) FROM meter_reading WHERE job_id = ?", Long.class, jobId) == 1);
        assertThat(jdbc.queryForObject("SELECT balance FROM account WHERE id = 42", BigDecimal.class))
            .isEqualByComparingTo("1.05");
        // the test artifact pgqueue-spring-boot-test: wait until both queues are drained
        queues.awaitDrained("meter-readings", Duration.ofSeconds(20));
        queues.awaitDrained("bills", Duration.ofSeconds(20));
        // history is on in the sample: the finished reading job is kept there
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job_history WHERE id = ?", Long.class, jobId))
            .isOne();
    }

    @Test
    void billForAnAccountWithoutEmailEndsDeadWithItsError() throws Exception {
        postReading(13, "1");

        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc
            .queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'bills' AND state = 'dead'", Long.class) == 1);
        assertThat(jdbc.queryForObject("SELECT last_error FROM pgqueue.job WHERE queue = 'bills' AND state = 'dead'",
                String.class))
            .startsWith("Failed 3 of 3 attempts")
            .contains("Account 13 has no email address");
    }

    /** The monthly billing run: a batch of 99 bills (account 13 has no address) and its callback, once. */
    @Test
    void aBillingRunEmailsEveryBillThenCallsBackOnce(org.springframework.boot.test.system.CapturedOutput output)
            throws Exception {
        JsonNode run = json.readTree(post("/billing-runs/2026-11").body());
        long batchId = run.get("batchId").asLong();
        assertThat(run.get("bills").asInt()).isEqualTo(99);
        io.pgqueue.admin.QueueAdmin admin = context.getBean(io.pgqueue.admin.QueueAdmin.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.batch(batchId).orElseThrow().state()
                == io.pgqueue.model.BatchState.SUCCEEDED);
        await().atMost(Duration.ofSeconds(10))
            .until(() -> output.getOut().contains("Billing run 2026-11 done: every bill emailed (batch " + batchId + ")"));
    }

    /** Closing an account: four steps of a workflow, each after its parents, outputs handed on. */
    @Test
    void closingAnAccountRunsItsStepsAfterTheirParents(org.springframework.boot.test.system.CapturedOutput output)
            throws Exception {
        long workflowId = json.readTree(post("/accounts/7/close").body()).get("workflowId").asLong();
        io.pgqueue.admin.QueueAdmin admin = context.getBean(io.pgqueue.admin.QueueAdmin.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.workflow(workflowId).orElseThrow().state()
                == io.pgqueue.model.WorkflowState.COMPLETED);
        // the refund is the deposit less the balance the final bill read: that step's output, handed on
        BigDecimal finalBill = jdbc.queryForObject("SELECT (output #>> '{}')::numeric FROM pgqueue.workflow_node "
                + "WHERE workflow_id = ? AND name = 'final-bill'", BigDecimal.class, workflowId);
        assertThat(output.getOut()).contains("Account 7 closed: refunded "
                + new BigDecimal("50.00").subtract(finalBill).max(BigDecimal.ZERO) + " EUR, data exported to "
                + "exports/account-7.json (workflow " + workflowId + ")");
    }

    /** Tenants on the fair statements queue: a large request and a small one both drain. */
    @Test
    void tenantsShareTheFairStatementsQueue() throws Exception {
        assertThat(json.readTree(post("/tenants/acme/statements?count=300").body()).get("sent").asInt()).isEqualTo(300);
        assertThat(json.readTree(post("/tenants/corner-shop/statements?count=5").body()).get("sent").asInt()).isEqualTo(5);
        queues.awaitDrained("statements", Duration.ofSeconds(60));
    }

    private HttpResponse<String> post(String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    private HttpResponse<String> postReading(long accountId, String kwh) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/readings"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"accountId\": " + accountId + ", \"kwh\": " + kwh + "}"))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void actuatorShowsQueuesMetricsAndPrometheus() throws Exception {
        postReading(7, "2");
        await().atMost(Duration.ofSeconds(20)).until(() -> jdbc
            .queryForObject("SELECT count(*) FROM meter_reading WHERE account_id = 7", Long.class) == 1);

        JsonNode queues = json.readTree(get("/actuator/pgqueue").body());
        assertThat(queues.at("/queues").findValuesAsString("name")).contains("meter-readings", "bills");
        assertThat(get("/actuator/metrics/pgqueue.jobs.completed").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/prometheus").body()).contains("pgqueue_jobs_completed_jobs_total");
    }

    @Test
    void onlyAnOperatorMayChangeQueuesOrSeeDeadPayloads() throws Exception {
        String pause = "{\"action\": \"pause\"}";
        HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/actuator/pgqueue/usage")).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(pause)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(401);

        postReading(13, "1");
        await().atMost(Duration.ofSeconds(30)).until(() -> !queues.deadJobs("bills").isEmpty());
        String asAnonymous = get("/actuator/pgqueue/bills").body();
        String operator = "Basic " + java.util.Base64.getEncoder().encodeToString("ops:ops-sample-password".getBytes());
        String asOperator = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/actuator/pgqueue/bills")).header("Authorization", operator).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(json.readTree(asAnonymous).at("/deadJobs/0/payload").asString()).isEqualTo("******");
        assertThat(json.readTree(asOperator).at("/deadJobs/0/lastError").asString()).contains("no email address");

        HttpResponse<String> resume = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/actuator/pgqueue/usage")).header("Content-Type", "application/json")
            .header("Authorization", operator)
            .POST(HttpRequest.BodyPublishers.ofString("{\"action\": \"resume\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(resume.statusCode()).isEqualTo(200);
    }

    @Test
    void dashboardIsForOperatorsWhoActWithTheCsrfTokenOfTheirPage() throws Exception {
        HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/pgqueue")).header("Accept", "text/html").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(302);
        assertThat(anonymous.headers().firstValue("Location")).hasValueSatisfying((to) -> assertThat(to).endsWith("/login"));

        String operator = "Basic " + java.util.Base64.getEncoder().encodeToString("ops:ops-sample-password".getBytes());
        HttpResponse<String> overview = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/pgqueue/api/overview")).header("Authorization", operator).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(json.readTree(overview.body()).at("/nodes").asInt()).isEqualTo(1);
        // an action without the page's CSRF token is refused, even from the operator
        HttpResponse<String> pause = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/pgqueue/api/queues/usage/pause")).header("Authorization", operator)
            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(pause.statusCode()).isEqualTo(403);
        assertThat(context.getBean(io.pgqueue.admin.QueueAdmin.class).isPaused("usage")).isFalse();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void loadGeneratorReadingsAreAllRecordedAndAggregatedInBuckets() throws Exception {
        long before = jdbc.queryForObject("SELECT count(*) FROM meter_reading", Long.class);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/load?count=200")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(json.readTree(response.body()).get("enqueued").asInt()).isEqualTo(200);

        queues.awaitDrained("meter-readings", Duration.ofSeconds(60));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM meter_reading", Long.class)).isEqualTo(before + 200);
        // every reading's usage event lands in a ten-second bucket, written as one row per batch
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT coalesce(sum(readings), 0) FROM usage_bucket", Long.class) == before + 200);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM usage_bucket", Long.class)).isLessThan(before + 200);
    }

    @Test
    void healthIsUp() throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json.readTree(response.body()).get("status").asString()).isEqualTo("UP");
    }
}
