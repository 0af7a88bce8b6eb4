package io.pgqueue.dashboard;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers.springSecurity;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * A read-write dashboard behind Spring Security as docs/dashboard.md shows it: anonymous requests and users without the
 * role are refused by the application's rules; an operator acts only with the CSRF token, and is logged.
 */
@SpringBootTest(classes = DashboardTestApplication.class, properties = "pgqueue.dashboard.read-only=false")
@ExtendWith(OutputCaptureExtension.class)
class DashboardSecurityTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DashboardSecurityTests.class);

    @Autowired
    WebApplicationContext context;

    @Autowired
    QueueAdmin admin;

    MockMvc mvc;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        TestDatabases.register(registry, database);
    }

    @BeforeEach
    void mvc() {
        mvc = MockMvcBuilders.webAppContextSetup(context).apply(springSecurity()).build();
        admin.resume("guarded");
    }

    @Test
    void aBulkActionWithAnUnknownOrBlankFilterIsRefusedAndTouchesNothing() throws Exception {
        org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate(
                database.dataSource());
        long dead = jdbc.queryForObject("INSERT INTO pgqueue.job (queue, state, payload, attempts, dead_at, last_error) "
                + "VALUES ('bulk', 'dead', '1'::jsonb, 1, now(), 'failed') RETURNING id", Long.class);
        for (String body : new String[] { "{\"all\": true, \"filter\": {\"grupKey\": \"tenant-1\"}}",
                "{\"all\": true, \"filter\": {\"groupKey\": \"  \"}}" }) {
            for (String action : new String[] { "retry", "purge" }) {
                mvc.perform(post("/pgqueue/api/queues/bulk/dead/" + action).with(user("ops").roles("OPS")).with(csrf())
                    .contentType(MediaType.APPLICATION_JSON)
                    .content(body)).andExpect(status().isBadRequest());
            }
        }
        assertThat(jdbc.queryForObject("SELECT state FROM pgqueue.job WHERE id = ?", String.class, dead))
            .isEqualTo("dead");
        // an explicit filter that matches it acts
        mvc.perform(post("/pgqueue/api/queues/bulk/dead/purge").with(user("ops").roles("OPS")).with(csrf())
            .contentType(MediaType.APPLICATION_JSON)
            .content("{\"all\": true, \"filter\": {\"enqueuedBefore\": \"2999-01-01T00:00:00Z\"}}"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.affected").value(1));
    }

    /** A freshly started application: a queue with a listener and no job is on the overview, with its listener. */
    @Test
    void theOverviewListsAQueueWithAListenerAndNoJobs() throws Exception {
        String node = admin.nodes().get(0).id().toString();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() -> mvc
            .perform(get("/pgqueue/api/overview").with(user("ops").roles("OPS")))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.queues[?(@.name == 'idle')].jobs.ready").value(0))
            .andExpect(jsonPath("$.queues[?(@.name == 'idle')].enqueued").value(0))
            .andExpect(jsonPath("$.queues[?(@.name == 'idle')].listeners[0].node").value(node))
            .andExpect(jsonPath("$.queues[?(@.name == 'idle')].listeners[0].mode").value("TRANSACTIONAL"))
            .andExpect(jsonPath("$.queues[?(@.name == 'idle')].listeners[0].concurrency").value(3)));
    }

    @Test
    void anonymousRequestsAreRefused() throws Exception {
        mvc.perform(get("/pgqueue/api/overview")).andExpect(status().isUnauthorized());
        mvc.perform(get("/pgqueue").accept(MediaType.TEXT_HTML)).andExpect(status().is3xxRedirection());
        mvc.perform(post("/pgqueue/api/queues/guarded/pause").with(csrf())).andExpect(status().isUnauthorized());
        assertThat(admin.isPaused("guarded")).isFalse();
    }

    @Test
    void usersWithoutTheRoleAreRefused() throws Exception {
        mvc.perform(get("/pgqueue/api/overview").with(user("viewer").roles("VIEWER"))).andExpect(status().isForbidden());
        mvc.perform(post("/pgqueue/api/queues/guarded/pause").with(user("viewer").roles("VIEWER")).with(csrf()))
            .andExpect(status().isForbidden());
        assertThat(admin.isPaused("guarded")).isFalse();
    }

    @Test
    void operatorActsWithTheCsrfTokenAndIsLogged(CapturedOutput output) throws Exception {
        mvc.perform(post("/pgqueue/api/queues/guarded/pause").with(user("ops").roles("OPS")))
            .andExpect(status().isForbidden());
        mvc.perform(post("/pgqueue/api/queues/guarded/pause").with(user("ops").roles("OPS")).with(csrf().useInvalidToken()))
            .andExpect(status().isForbidden());
        assertThat(admin.isPaused("guarded")).isFalse();

        mvc.perform(post("/pgqueue/api/queues/guarded/pause").with(user("ops").roles("OPS")).with(csrf()))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.affected").value(1));
        assertThat(admin.isPaused("guarded")).isTrue();
        assertThat(output).contains("pgqueue dashboard: ops pause queue guarded");
    }

    @Test
    void pageGivesTheOperatorTheCsrfTokenAndActions() throws Exception {
        mvc.perform(get("/pgqueue").with(user("ops").roles("OPS")))
            .andExpect(status().isOk())
            .andExpect(content().string(org.hamcrest.Matchers.containsString("<meta name=\"pgqueue-writable\" content=\"true\">")))
            .andExpect(content().string(org.hamcrest.Matchers.containsString("<meta name=\"pgqueue-csrf-header\" content=\"X-CSRF-TOKEN\">")))
            .andExpect(content().string(org.hamcrest.Matchers.matchesPattern(
                    "(?s).*<meta name=\"pgqueue-csrf-token\" content=\"[^\"]{20,}\">.*")));
    }

    @Test
    void refusedActionsSayWhy() throws Exception {
        mvc.perform(post("/pgqueue/api/jobs/987654321/retry").with(user("ops").roles("OPS")).with(csrf()))
            .andExpect(status().isNotFound())
            .andExpect(jsonPath("$.error").value(org.hamcrest.Matchers.containsString("987654321")));
        mvc.perform(get("/pgqueue/api/queues/guarded/jobs").param("enqueuedAfter", "yesterday")
            .with(user("ops").roles("OPS")))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error").value(org.hamcrest.Matchers.containsString("enqueuedAfter must be an ISO-8601")));
    }
}
