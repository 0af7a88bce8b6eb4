package io.pgqueue.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(classes = PgQueueEndpointTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "management.endpoints.web.exposure.include=health,metrics,pgqueue",
                "management.endpoint.pgqueue.access=unrestricted", "management.endpoint.pgqueue.show-values=always",
                "management.endpoint.health.show-details=always", "pgqueue.metrics.refresh-interval=100ms",
                "pgqueue.maintenance.interval=100ms", "pgqueue.listener.poll-interval=200ms",
                "pgqueue.listener.heartbeat-interval=200ms", "pgqueue.listener.node-timeout=2s",
                "pgqueue.listener.shutdown-timeout=2s", "pgqueue.health.max-lag=1s", "pgqueue.history.enabled=true",
                "pgqueue.schedules.nightly.queue=reports", "pgqueue.schedules.nightly.cron=0 0 3 * * *" })
@org.junit.jupiter.api.extension.ExtendWith(OutputCaptureExtension.class)
class PgQueueEndpointTests {

    private static final TestDatabase database = TestPostgres.createDatabase(PgQueueEndpointTests.class);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        QueueContextRunners.registerDataSource(registry, database);
    }

    @LocalServerPort
    int port;

    @Autowired
    QueueTemplate template;

    @Autowired
    JsonMapper json;

    private final HttpClient http = HttpClient.newHttpClient();

    private final Jobs jobs = new Jobs(database.dataSource());

    record Order(String item, boolean fail) {
    }

    @Test
    void listsQueuesContainersNodesAndSchemaVersion() throws Exception {
        template.send("orders", new Order("book", false));
        await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("orders") == 0);

        JsonNode body = await().atMost(Duration.ofSeconds(10))
            .until(() -> get("/actuator/pgqueue"), (node) -> queue(node, "orders") != null
                    && queue(node, "orders").at("/totals/completed").asLong() >= 1);

        JsonNode orders = queue(body, "orders");
        assertThat(orders.at("/jobs/ready").asLong()).isZero();
        assertThat(orders.at("/paused").asBoolean()).isFalse();
        assertThat(orders.at("/containers/0/id").asString()).isEqualTo("orders-1");
        assertThat(orders.at("/containers/0/mode").asString()).isEqualTo("LEASE");
        assertThat(orders.at("/containers/0/running").asBoolean()).isTrue();
        assertThat(body.at("/nodes").size()).isGreaterThanOrEqualTo(1);
        // every node's containers, as its heartbeat recorded them
        assertThat(body.at("/nodes/0/containers/0/id").asString()).isEqualTo("orders-1");
        assertThat(body.at("/nodes/0/containers/0/queue").asString()).isEqualTo("orders");
        assertThat(body.at("/nodes/0/containers/0/concurrency").asInt()).isPositive();
        assertThat(body.at("/schemaVersion").asString()).isEqualTo("17");
    }

    /** A freshly started application: its queues show with zero counts, and who listens to them. */
    @Test
    void queuesWithAListenerOrAScheduleAndNoJobsAreListedWithTheirListeners() throws Exception {
        JsonNode body = await().atMost(Duration.ofSeconds(10))
            .until(() -> get("/actuator/pgqueue"), (node) -> queue(node, "quiet") != null);

        JsonNode quiet = queue(body, "quiet");
        assertThat(quiet.at("/jobs/ready").asLong()).isZero();
        assertThat(quiet.at("/jobs/dead").asLong()).isZero();
        assertThat(quiet.at("/totals/enqueued").asLong()).isZero();
        assertThat(quiet.at("/listeners").size()).isEqualTo(1);
        assertThat(quiet.at("/listeners/0/node").asString()).isEqualTo(body.at("/nodes/0/id").asString());
        assertThat(quiet.at("/listeners/0/host").asString()).isNotEmpty();
        assertThat(quiet.at("/listeners/0/mode").asString()).isEqualTo("TRANSACTIONAL");
        assertThat(quiet.at("/listeners/0/concurrency").asInt()).isEqualTo(3);
        // a queue only a schedule sends to, before its first tick
        JsonNode reports = queue(body, "reports");
        assertThat(reports).as("the schedule's queue").isNotNull();
        assertThat(reports.at("/jobs/scheduled").asLong()).isZero();
        assertThat(reports.at("/listeners").size()).isZero();
        assertThat(get("/actuator/pgqueue/quiet").at("/queue/name").asString()).isEqualTo("quiet");
    }

    @Test
    void jobsAreListedLookedUpAndCancelledOverHttp() throws Exception {
        long id = template.send("orders", new Order("later", false),
                SendOptions.builder().delay(Duration.ofHours(1)).header("tenant", "acme").build()).jobId();

        JsonNode page = get("/actuator/pgqueue/orders?state=scheduled&header=tenant:acme&limit=5");
        assertThat(page.at("/jobs/0/id").asLong()).isEqualTo(id);
        assertThat(page.at("/jobs/0/state").asString()).isEqualTo("scheduled");
        assertThat(page.at("/jobs/0/payload").asString()).isEqualTo("{\"fail\": false, \"item\": \"later\"}");
        JsonNode job = get("/actuator/pgqueue/orders/" + id);
        assertThat(job.at("/headers/tenant").asString()).isEqualTo("acme");

        assertThat(post("/actuator/pgqueue/orders", "{\"action\": \"cancel\", \"jobId\": " + id + "}")
            .at("/action").asString()).isEqualTo("cancelled");
        assertThat(get("/actuator/pgqueue/orders/" + id).at("/state").asString()).isEqualTo("cancelled");

        HttpResponse<String> again = postAllowingErrors("/actuator/pgqueue/orders",
                "{\"action\": \"cancel\", \"jobId\": " + id + "}");
        assertThat(again.statusCode()).isEqualTo(400);
        assertThat(again.body()).contains("has already finished (cancelled)");
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/pgqueue/orders/987654321")).build()).statusCode())
            .isEqualTo(404);
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/pgqueue/orders?limit=501")).build()).statusCode())
            .isEqualTo(400);
    }

    @Test
    void recurringJobsArePausedAndTriggeredOverHttp() throws Exception {
        assertThat(post("/actuator/pgqueue/schedules/nightly", "{\"action\": \"pause\"}").at("/affected").asLong())
            .isOne();
        JsonNode all = get("/actuator/pgqueue");
        assertThat(all.at("/schedules/0/name").asString()).isEqualTo("nightly");
        assertThat(all.at("/schedules/0/paused").asBoolean()).isTrue();

        assertThat(post("/actuator/pgqueue/schedules/nightly", "{\"action\": \"trigger\"}").at("/affected").asLong())
            .isOne();
        assertThat(jobs.count("reports")).isOne();
        assertThat(postAllowingErrors("/actuator/pgqueue/schedules/nightly", "{\"action\": \"reschedule\"}")
            .statusCode()).isEqualTo(400);
        post("/actuator/pgqueue/schedules/nightly", "{\"action\": \"resume\"}");
        assertThat(get("/actuator/pgqueue").at("/schedules/0/paused").asBoolean()).isFalse();
    }

    @Test
    void deadJobsCanBeListedRetriedAndPurgedOverHttp() throws Exception {
        long id = template.send("orders", new Order("broken", true), SendOptions.builder().maxAttempts(1).build())
            .jobId();
        await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(id).get("state")));

        JsonNode detail = get("/actuator/pgqueue/orders?deadLimit=5");
        assertThat(detail.at("/deadJobs/0/id").asLong()).isEqualTo(id);
        assertThat(detail.at("/deadJobs/0/lastError").asString()).contains("order rejected");
        assertThat(detail.at("/deadLimit").asInt()).isEqualTo(5);

        assertThat(post("/actuator/pgqueue/orders", "{\"action\": \"retry-dead\", \"jobId\": " + id + "}")
            .at("/affected").asLong()).isOne();
        // it fails again (one attempt allowed) and is dead once more
        await().atMost(Duration.ofSeconds(10))
            .until(() -> "dead".equals(jobs.row(id).get("state")) && (int) jobs.row(id).get("attempts") == 1);

        assertThat(post("/actuator/pgqueue/orders", "{\"action\": \"purge-dead\", \"all\": true}").at("/affected").asLong())
            .isGreaterThanOrEqualTo(1);
        assertThat(jobs.count("orders", "dead")).isZero();
    }

    @Test
    void pauseThroughTheEndpointStopsClaimingOnAnotherContextAndTurnsHealthOutOfService() throws Exception {
        List<String> handledElsewhere = new CopyOnWriteArrayList<>();
        post("/actuator/pgqueue/invoices", "{\"action\": \"pause\"}");

        QueueContextRunners.fastListeners(database)
            .withBean(InvoiceListener.class, () -> new InvoiceListener(handledElsewhere))
            .run((other) -> {
                other.getBean(QueueTemplate.class).send("invoices", new Order("invoice", false));

                // paused: nobody claims it for several poll intervals, and its lag passes the 1 s health limit
                await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
                    .until(() -> handledElsewhere.isEmpty() && jobs.count("invoices", "ready") == 1);
                JsonNode health = await().atMost(Duration.ofSeconds(5))
                    .until(() -> getAllowingErrors("/actuator/health/pgqueue"),
                            (node) -> "OUT_OF_SERVICE".equals(node.at("/status").asString()));
                assertThat(health.at("/details/laggingQueues/0").asString()).isEqualTo("invoices");
                assertThat(get("/actuator/pgqueue/invoices").at("/queue/paused").asBoolean()).isTrue();

                post("/actuator/pgqueue/invoices", "{\"action\": \"resume\"}");

                await().atMost(Duration.ofSeconds(10)).until(() -> handledElsewhere.size() == 1);
                await().atMost(Duration.ofSeconds(5))
                    .until(() -> getAllowingErrors("/actuator/health/pgqueue"),
                            (node) -> "UP".equals(node.at("/status").asString()));
            });
    }

    @Test
    void metricsShowQueueStateAndListenerOutcomes() throws Exception {
        template.send("orders", new Order("pen", false));
        long dead = template.send("orders", new Order("broken", true), SendOptions.builder().maxAttempts(1).build())
            .jobId();
        await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(dead).get("state")));

        await().atMost(Duration.ofSeconds(10))
            .until(() -> metric("pgqueue.jobs", "queue:orders", "state:dead") >= 1.0);
        assertThat(metric("pgqueue.jobs.completed", "queue:orders")).isGreaterThanOrEqualTo(1.0);
        assertThat(metric("pgqueue.jobs.dead", "queue:orders")).isGreaterThanOrEqualTo(1.0);
        assertThat(metric("pgqueue.jobs.failed", "queue:orders")).isGreaterThanOrEqualTo(1.0);
        assertThat(get("/actuator/metrics/pgqueue.job.duration?tag=queue:orders&tag=outcome:success")
            .at("/measurements/0/value").asDouble()).isGreaterThanOrEqualTo(1.0);
        assertThat(get("/actuator/metrics/pgqueue.job.latency?tag=queue:orders").at("/measurements/0/value")
            .asDouble()).isGreaterThanOrEqualTo(2.0);
        assertThat(get("/actuator/metrics/pgqueue.job.lag").at("/availableTags/0/tag").asString()).isEqualTo("queue");
        post("/actuator/pgqueue/orders", "{\"action\": \"purge-dead\", \"all\": true}");
    }

    @Test
    void aParkedJobShowsItsStepsAndWhatItWaitsForAndAnOperatorCanEmitItsEventOrWakeIt() throws Exception {
        long awaiting = template.send("onboarding", new Order("ada", false));
        long sleeping = template.send("onboarding", new Order("bob", true));
        for (long id : new long[] { awaiting, sleeping }) {
            await().atMost(Duration.ofSeconds(10)).until(() -> "scheduled".equals(jobs.row(id).get("state")));
        }
        JsonNode parked = get("/actuator/pgqueue/onboarding/" + awaiting);
        assertThat(parked.at("/steps/0/name").asString()).isEqualTo("welcome");
        assertThat(parked.at("/steps/0/result").asString()).isEqualTo("\"mail-ada\"");
        assertThat(parked.at("/waitingFor/kind").asString()).isEqualTo("event");
        assertThat(parked.at("/waitingFor/eventKey").asString()).isEqualTo("verified:ada");
        assertThat(get("/actuator/pgqueue/onboarding/" + sleeping).at("/waitingFor/kind").asString()).isEqualTo("sleep");

        // a bad key is the request's fault; the first emit is the key's, a second changes nothing
        assertThat(postAllowingErrors("/actuator/pgqueue/events/pgqueue:job:1", "{\"action\": \"emit\"}").statusCode())
            .isEqualTo(400);
        assertThat(post("/actuator/pgqueue/events/verified:ada", "{\"action\": \"emit\", \"payload\": \"{\\\"by\\\": \\\"mail\\\"}\"}")
            .at("/affected").asLong()).isOne();
        assertThat(post("/actuator/pgqueue/events/verified:ada", "{\"action\": \"emit\"}").at("/affected").asLong())
            .isZero();
        assertThat(post("/actuator/pgqueue/onboarding", "{\"action\": \"wake\", \"jobId\": " + sleeping + "}")
            .at("/affected").asLong()).isOne();
        await().atMost(Duration.ofSeconds(10)).until(() -> OrderListener.DONE.containsAll(List.of("ada", "bob")));
    }

    @Test
    void aBadPageSizeOrQueueNameIsTheRequestsFault() throws Exception {
        template.send("orders", new Order("pen", false));
        for (String path : List.of("/actuator/pgqueue/orders?deadLimit=0", "/actuator/pgqueue/orders?deadOffset=-1",
                "/actuator/pgqueue/no%20spaces%21")) {
            HttpResponse<String> response = send(HttpRequest.newBuilder(uri(path)).build());
            assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(400);
        }
    }

    @Test
    void aQueueWideActionThatNamesNoJobFilterOrAllIsRefusedAndTouchesNothing(CapturedOutput output) throws Exception {
        long dead = template.send("orders", new Order("broken", true), SendOptions.builder().maxAttempts(1).build())
            .jobId();
        await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(dead).get("state")));
        long waiting = template.send("orders", new Order("later", false),
                SendOptions.builder().delay(Duration.ofHours(1)).build()).jobId();

        // a misspelt jobId, a blank filter, nothing at all: each a 400, and nothing is purged or cancelled
        for (String body : List.of("{\"action\": \"purge-dead\", \"jobID\": " + dead + "}",
                "{\"action\": \"retry-dead\"}", "{\"action\": \"cancel\", \"jobID\": " + waiting + "}",
                "{\"action\": \"cancel\", \"groupKey\": \" \", \"all\": true}",
                "{\"action\": \"cancel\", \"state\": \"scheduled\"}")) {
            HttpResponse<String> response = postAllowingErrors("/actuator/pgqueue/orders", body);
            assertThat(response.statusCode()).as(body + ": " + response.body()).isEqualTo(400);
        }
        assertThat(jobs.row(dead).get("state")).isEqualTo("dead");
        assertThat(jobs.row(waiting).get("state")).isEqualTo("scheduled");

        assertThat(post("/actuator/pgqueue/orders", "{\"action\": \"cancel\", \"jobId\": " + waiting + "}")
            .at("/affected").asLong()).isOne();
        assertThat(post("/actuator/pgqueue/orders", "{\"action\": \"purge-dead\", \"all\": true}")
            .at("/affected").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(jobs.count("orders", "dead")).isZero();
        // every write is logged with its user, the refused ones too
        assertThat(output).contains("pgqueue endpoint: anonymous purge-dead queue orders")
            .contains("pgqueue endpoint: anonymous cancel queue orders job " + waiting)
            .contains("pgqueue endpoint refused 'retry-dead' on queue orders by anonymous");
    }

    private double metric(String name, String... tags) throws Exception {
        StringBuilder path = new StringBuilder("/actuator/metrics/" + name + "?");
        for (String tag : tags) {
            path.append("tag=").append(tag).append('&');
        }
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri(path.toString())).build());
        return (response.statusCode() == 200) ? json.readTree(response.body()).at("/measurements/0/value").asDouble()
                : -1;
    }

    private static JsonNode queue(JsonNode body, String name) {
        for (JsonNode queue : body.at("/queues")) {
            if (queue.at("/name").asString().equals(name)) {
                return queue;
            }
        }
        return null;
    }

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri(path)).build());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }

    private JsonNode getAllowingErrors(String path) throws Exception {
        return json.readTree(send(HttpRequest.newBuilder(uri(path)).build()).body());
    }

    private JsonNode post(String path, String body) throws Exception {
        HttpResponse<String> response = postAllowingErrors(path, body);
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }

    private HttpResponse<String> postAllowingErrors(String path, String body) throws Exception {
        return send(HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    static class OrderListener {

        @QueueListener(queue = "orders", concurrency = "2")
        void handle(Order order) {
            if (order.fail()) {
                throw new IllegalStateException("order rejected: " + order.item());
            }
        }

        @QueueListener(queue = "quiet", mode = "TRANSACTIONAL", concurrency = "3")
        void quiet(Order order) {
            throw new IllegalStateException("no job is ever sent to this queue");
        }

        /** Durable execution: a step, then an event or a long sleep, then the order is done. */
        @QueueListener(queue = "onboarding")
        void onboard(Order order, io.pgqueue.listener.JobContext ctx) {
            ctx.step("welcome", () -> "mail-" + order.item());
            if (order.fail()) {
                ctx.sleep(Duration.ofHours(1));
            }
            else {
                ctx.awaitEvent("verified:" + order.item(), Duration.ofDays(7));
            }
            DONE.add(order.item());
        }

        static final java.util.Set<String> DONE = java.util.concurrent.ConcurrentHashMap.newKeySet();
    }

    static class InvoiceListener {

        private final List<String> handled;

        InvoiceListener(List<String> handled) {
            this.handled = handled;
        }

        @QueueListener(queue = "invoices")
        void handle(Order order) {
            handled.add(order.item());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        OrderListener orderListener() {
            return new OrderListener();
        }
    }
}
