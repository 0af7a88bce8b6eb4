package io.pgqueue.dashboard;

import io.pgqueue.dashboard.autoconfigure.PgQueueDashboardAutoConfiguration;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Without Spring Security the dashboard stays read-only whatever {@code read-only} says, and says how to
 * enable actions safely; the dashboard can be switched off; a bad path fails startup naming the property.
 */
class DashboardWithoutSecurityTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DashboardWithoutSecurityTests.class);

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                PgQueueAutoConfiguration.class, DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
                HttpMessageConvertersAutoConfiguration.class, PgQueueDashboardAutoConfiguration.class))
        .withPropertyValues(database.springProperties())
        .withClassLoader(new FilteredClassLoader("org.springframework.security"));

    @Test
    void actionsAreRefusedWithoutSpringSecurityEvenWhenReadWrite() {
        runner.withPropertyValues("pgqueue.dashboard.read-only=false").run((context) -> {
            assertThat(context).hasNotFailed();
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(post("/pgqueue/api/queues/open/pause"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.error").value(containsString("Dashboard actions need Spring Security")))
                .andExpect(jsonPath("$.error").value(containsString("spring-boot-starter-security")));
            assertThat(context.getBean(QueueAdmin.class).isPaused("open")).isFalse();
            mvc.perform(get("/pgqueue"))
                .andExpect(status().isOk())
                .andExpect(content().string(containsString("<meta name=\"pgqueue-writable\" content=\"false\">")))
                .andExpect(content().string(containsString("Dashboard actions need Spring Security")));
            mvc.perform(get("/pgqueue/api/overview")).andExpect(status().isOk());
            mvc.perform(get("/pgqueue/assets/app.js"))
                .andExpect(status().isOk())
                .andExpect(content().string(containsString("textContent")));
        });
    }

    @Test
    void dashboardIsServedAtTheConfiguredPathOrNotAtAll() {
        runner.withPropertyValues("pgqueue.dashboard.path=/ops/queues").run((context) -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/ops/queues")).andExpect(status().isOk())
                .andExpect(content().string(containsString("<meta name=\"pgqueue-base\" content=\"/ops/queues\">")));
            mvc.perform(get("/ops/queues/api/overview")).andExpect(status().isOk());
            mvc.perform(get("/pgqueue")).andExpect(status().isNotFound());
        });
        runner.withPropertyValues("pgqueue.dashboard.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(DashboardApiController.class));
    }

    @Test
    void invalidPathFailsStartupNamingTheProperty() {
        runner.withPropertyValues("pgqueue.dashboard.path=pgqueue/").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("pgqueue.dashboard.path");
        });
    }
}
