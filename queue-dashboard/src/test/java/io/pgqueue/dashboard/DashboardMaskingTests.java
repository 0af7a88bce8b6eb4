package io.pgqueue.dashboard;

import java.time.Duration;
import java.util.Map;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers.springSecurity;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Masked (the default) means masked: besides payloads, errors and outputs, the values that often carry
 * personal data — header values, group and dedup keys, progress messages — read as the mask. And with
 * {@code pgqueue.dashboard.operator-role}, only users with that role may act.
 */
@SpringBootTest(classes = DashboardTestApplication.class,
        properties = { "pgqueue.dashboard.read-only=false", "pgqueue.dashboard.operator-role=ADMIN",
                "pgqueue.queues.masked-tenants.fairness.enabled=true" })
class DashboardMaskingTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DashboardMaskingTests.class);

    @Autowired
    WebApplicationContext context;

    @Autowired
    QueueTemplate queues;

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
    }

    @Test
    void headerValuesKeysAndProgressAreMaskedLikePayloads() throws Exception {
        long id = queues.send("personal", Map.of("card", "4111"), SendOptions.builder()
            .header("email", "ada@example.com")
            .groupKey("user-ada@example.com")
            .dedupKey("welcome-ada@example.com")
            .delay(Duration.ofHours(1))
            .build()).jobId();

        mvc.perform(get("/pgqueue/api/jobs/" + id).with(user("ops").roles("OPS")))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.headers.email").value("******"))
            .andExpect(jsonPath("$.groupKey").value("******"))
            .andExpect(jsonPath("$.dedupKey").value("******"))
            .andExpect(jsonPath("$.payload").value("******"));
        String list = mvc.perform(get("/pgqueue/api/queues/personal/jobs").with(user("ops").roles("OPS")))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString();
        assertThat(list).contains("\"id\":" + id).doesNotContain("ada@example.com");
    }

    /** Fairness keys (tenant or customer ids) show as handles, and the page's key actions take them. */
    @Test
    void fairnessKeysAreMaskedAsHandlesThatTheKeyActionsTake() throws Exception {
        queues.send("masked-tenants", Map.of("n", 1), SendOptions.builder().fairnessKey("ada@example.com").build());

        String keys = mvc.perform(get("/pgqueue/api/queues/masked-tenants/keys").with(user("ops").roles("OPS")))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$[0].key").value(org.hamcrest.Matchers.matchesPattern("~[0-9a-f]{16}")))
            .andReturn()
            .getResponse()
            .getContentAsString();
        assertThat(keys).doesNotContain("ada@example.com");
        String handle = admin.fairnessKeys("masked-tenants", 10).get(0).handle();
        assertThat(keys).contains(handle);

        mvc.perform(post("/pgqueue/api/queues/masked-tenants/keys/" + handle + "/pause")
            .with(user("admin").roles("OPS", "ADMIN")).with(csrf()))
            .andExpect(status().isOk());
        assertThat(admin.fairnessKeys("masked-tenants", 10)).singleElement().satisfies((key) -> {
            assertThat(key.key()).isEqualTo("ada@example.com");
            assertThat(key.paused()).isTrue();
        });
    }

    @Test
    void onlyTheOperatorRoleMayAct() throws Exception {
        admin.resume("roles");
        mvc.perform(post("/pgqueue/api/queues/roles/pause").with(user("ops").roles("OPS")).with(csrf()))
            .andExpect(status().isForbidden())
            .andExpect(jsonPath("$.error").value(containsString("pgqueue.dashboard.operator-role")));
        assertThat(admin.isPaused("roles")).isFalse();

        mvc.perform(post("/pgqueue/api/queues/roles/pause").with(user("admin").roles("OPS", "ADMIN")).with(csrf()))
            .andExpect(status().isOk());
        assertThat(admin.isPaused("roles")).isTrue();
    }

    @Test
    void aBulkBodyIsReadOnlyOnceTheRequestMayActAndOnlyUpToItsBound() throws Exception {
        // not allowed to act: refused before the body is read (this one would not even parse)
        mvc.perform(post("/pgqueue/api/queues/roles/dead/purge").with(user("ops").roles("OPS")).with(csrf())
            .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
            .content("{\"ids\": [1, 2, " + "3, ".repeat(100_000)))
            .andExpect(status().isForbidden());
        // allowed: too many ids, or too large a body, is a 400
        String manyIds = "{\"ids\": [" + "1, ".repeat(1_500) + "1]}";
        mvc.perform(post("/pgqueue/api/queues/roles/dead/purge").with(user("admin").roles("OPS", "ADMIN")).with(csrf())
            .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
            .content(manyIds))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error").value(containsString("At most 1000 job ids")));
        mvc.perform(post("/pgqueue/api/queues/roles/dead/purge").with(user("admin").roles("OPS", "ADMIN")).with(csrf())
            .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
            .content("{\"ids\": [1, 2, " + "3, ".repeat(100_000) + "4]}"))
            .andExpect(status().isBadRequest());
        mvc.perform(post("/pgqueue/api/queues/roles/dead/purge").with(user("admin").roles("OPS", "ADMIN")).with(csrf())
            .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
            .content("{\"ids\": [987654321]}"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.affected").value(0));
    }
}
