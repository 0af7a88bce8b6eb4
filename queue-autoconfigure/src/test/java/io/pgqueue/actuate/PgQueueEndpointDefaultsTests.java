package io.pgqueue.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The endpoint as an application gets it without configuring it: exposed on purpose, it reads, but its
 * write operations are refused and dead jobs' payloads and errors are masked.
 */
@SpringBootTest(classes = PgQueueEndpointTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "management.endpoints.web.exposure.include=pgqueue", "pgqueue.listener.poll-interval=200ms",
                "pgqueue.listener.shutdown-timeout=2s", "pgqueue.queues.tenants.fairness.enabled=true" })
class PgQueueEndpointDefaultsTests {

    private static final TestDatabase database = TestPostgres.createDatabase(PgQueueEndpointDefaultsTests.class);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        QueueContextRunners.registerDataSource(registry, database);
    }

    @LocalServerPort
    int port;

    @Autowired
    QueueTemplate template;

    @Autowired
    QueueAdmin admin;

    @Autowired
    JsonMapper json;

    private final HttpClient http = HttpClient.newHttpClient();

    private final Jobs jobs = new Jobs(database.dataSource());

    @Test
    void writeOperationsAreRefusedUnlessAccessIsUnrestricted() throws Exception {
        template.send("orders", new PgQueueEndpointTests.Order("book", false));

        HttpResponse<String> pause = http.send(HttpRequest.newBuilder(uri("/actuator/pgqueue/orders"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"action\": \"pause\"}"))
            .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(pause.statusCode()).as(pause.body()).isGreaterThanOrEqualTo(400);
        assertThat(admin.isPaused("orders")).isFalse();
        HttpResponse<String> emit = http.send(HttpRequest.newBuilder(uri("/actuator/pgqueue/events/paid:1"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"action\": \"emit\"}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(emit.statusCode()).as(emit.body()).isGreaterThanOrEqualTo(400);
        assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.event", Long.class)).isZero();
        assertThat(http.send(HttpRequest.newBuilder(uri("/actuator/pgqueue")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    @Test
    void deadJobsPayloadsAndErrorsAreMaskedUnlessShown() throws Exception {
        long id = template.send("orders", new PgQueueEndpointTests.Order("secret card number", true),
                SendOptions.builder().maxAttempts(1).build()).jobId();
        await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(id).get("state")));

        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/actuator/pgqueue/orders")).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode detail = json.readTree(response.body());

        assertThat(detail.at("/deadJobs/0/id").asLong()).isEqualTo(id);
        assertThat(detail.at("/deadJobs/0/payload").asString()).isEqualTo("******");
        assertThat(detail.at("/deadJobs/0/lastError").asString()).isEqualTo("******");
        assertThat(response.body()).doesNotContain("secret card number").doesNotContain("order rejected");
        assertThat(detail.at("/jobs/0/payload").asString()).isEqualTo("******");

        HttpResponse<String> job = http.send(HttpRequest.newBuilder(uri("/actuator/pgqueue/orders/" + id)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(json.readTree(job.body()).at("/state").asString()).isEqualTo("dead");
        assertThat(job.body()).doesNotContain("secret card number").doesNotContain("order rejected");

        HttpResponse<String> cancel = http.send(HttpRequest.newBuilder(uri("/actuator/pgqueue/orders"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"action\": \"cancel\"}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(cancel.statusCode()).as("cancel refused by default").isGreaterThanOrEqualTo(400);
        assertThat(jobs.row(id).get("state")).isEqualTo("dead");
    }

    /**
     * Fairness keys are usually tenant or customer ids: masked, each shows as its handle, which stands for the key in
     * every key operation.
     */
    @Test
    void fairnessKeysAreMaskedAsHandlesThatOperationsTake() throws Exception {
        template.send("tenants", new PgQueueEndpointTests.Order("book", false),
                SendOptions.builder().fairnessKey("customer-4711").build());

        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/actuator/pgqueue/tenants")).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode detail = json.readTree(response.body());
        String handle = detail.at("/fairnessKeys/0/key").asString();

        assertThat(response.body()).doesNotContain("customer-4711");
        assertThat(handle).matches("~[0-9a-f]{16}").isEqualTo(detail.at("/fairnessKeys/0/handle").asString());
        assertThat(admin.fairnessKeys("tenants", 10)).singleElement()
            .satisfies((key) -> assertThat(key.handle()).isEqualTo(handle));

        // an operator pauses the key by its handle (the endpoint's writes are refused here: through the admin)
        admin.pauseFairnessKey("tenants", handle);
        assertThat(admin.fairnessKeys("tenants", 10)).singleElement().satisfies((key) -> {
            assertThat(key.key()).isEqualTo("customer-4711");
            assertThat(key.paused()).isTrue();
        });
        admin.resumeFairnessKey("tenants", handle);
        assertThat(admin.fairnessKeys("tenants", 10)).singleElement()
            .satisfies((key) -> assertThat(key.paused()).isFalse());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}
