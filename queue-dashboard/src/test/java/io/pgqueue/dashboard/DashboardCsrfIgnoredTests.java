package io.pgqueue.dashboard;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers.springSecurity;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * An application whose security chain ignores CSRF for the dashboard's path (as {@code ignoringRequestMatchers}
 * or a broad custom matcher easily does). Spring Security still puts a token on the request; the dashboard
 * must check the token the request sent, not the attribute's presence, or a cross-site form posted with the
 * operator's session cookie pauses queues.
 */
@SpringBootTest(classes = DashboardCsrfIgnoredTests.CsrfIgnoringApplication.class,
        properties = "pgqueue.dashboard.read-only=false")
class DashboardCsrfIgnoredTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DashboardCsrfIgnoredTests.class);

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
        admin.resume("targeted");
    }

    @Test
    void aCrossSiteFormWithoutTheTokenIsRefusedEvenWhenTheChainIgnoresCsrf() throws Exception {
        // what a cross-site form sends: the session (here: the signed-in user), no token or a guessed one
        mvc.perform(post("/pgqueue/api/queues/targeted/pause").with(user("ops").roles("OPS")))
            .andExpect(status().isForbidden());
        mvc.perform(post("/pgqueue/api/queues/targeted/pause").with(user("ops").roles("OPS"))
            .header("X-CSRF-TOKEN", "guessed"))
            .andExpect(status().isForbidden());
        mvc.perform(post("/pgqueue/api/queues/targeted/pause").with(user("ops").roles("OPS"))
            .with(csrf().useInvalidToken()))
            .andExpect(status().isForbidden());
        assertThat(admin.isPaused("targeted")).isFalse();

        // the dashboard's own page sends the session's token: that acts
        mvc.perform(post("/pgqueue/api/queues/targeted/pause").with(user("ops").roles("OPS")).with(csrf()))
            .andExpect(status().isOk());
        assertThat(admin.isPaused("targeted")).isTrue();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class CsrfIgnoringApplication {

        @Bean
        SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
            http.authorizeHttpRequests((requests) -> requests.requestMatchers("/pgqueue/**").hasRole("OPS")
                .anyRequest()
                .permitAll())
                .csrf((csrf) -> csrf.ignoringRequestMatchers("/pgqueue/**"))
                .httpBasic(Customizer.withDefaults());
            return http.build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ops").password("{noop}secret-for-tests").roles("OPS").build());
        }
    }
}
