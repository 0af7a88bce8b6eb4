package io.pgqueue.dashboard;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.annotation.QueueListener;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * An application with the dashboard, secured as docs/dashboard.md shows: the dashboard's path needs the OPS role (user
 * {@code ops}); {@code viewer} is signed in without it. Its listeners: {@code work} counts its jobs,
 * {@code flaky} fails the first attempt of each payload (one attempt allowed, so that job goes dead) and
 * succeeds when retried.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class DashboardTestApplication {

    static final String PASSWORD = "secret-for-tests";

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests((requests) -> requests
            .requestMatchers("/pgqueue/**").hasRole("OPS")
            .anyRequest().permitAll())
            .formLogin(Customizer.withDefaults())
            .httpBasic(Customizer.withDefaults());
        return http.build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("ops").password("{noop}" + PASSWORD).roles("OPS").build(),
                User.withUsername("viewer").password("{noop}" + PASSWORD).roles("VIEWER").build());
    }

    @Bean
    Listeners listeners() {
        return new Listeners();
    }

    static class Listeners {

        final AtomicInteger work = new AtomicInteger();

        final Set<String> failedOnce = ConcurrentHashMap.newKeySet();

        final Map<String, AtomicInteger> flakyRuns = new ConcurrentHashMap<>();

        @QueueListener(queue = "work", concurrency = "2")
        void work(Map<String, Object> payload) {
            work.incrementAndGet();
        }

        /** The first steps of the browser test's workflow. */
        @QueueListener(queue = "orders-wf", concurrency = "2")
        void orders(Map<String, Object> payload) {
        }

        /** A queue no job is sent to: the overview shows it anyway, with its listener. */
        @QueueListener(queue = "idle", mode = "TRANSACTIONAL", concurrency = "3")
        void idle(Map<String, Object> payload) {
            throw new IllegalStateException("no job is ever sent to this queue");
        }

        /** Durable execution: two steps, then a sleep of an hour that the browser test ends from the job's page. */
        @QueueListener(queue = "durable")
        void durable(Map<String, Object> payload, io.pgqueue.listener.JobContext ctx) {
            ctx.step("charge", String.class, () -> "ch_" + payload.get("order"));
            ctx.step("reserve", String.class, () -> "slot-4");
            ctx.sleep(java.time.Duration.ofHours(1));
            durableDone.add(String.valueOf(payload.get("order")));
        }

        final Set<String> durableDone = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "flaky", maxAttempts = "1")
        Map<String, Object> flaky(Map<String, Object> payload) {
            String name = String.valueOf(payload.get("name"));
            flakyRuns.computeIfAbsent(name, (n) -> new AtomicInteger()).incrementAndGet();
            if (failedOnce.add(name)) {
                throw new IllegalStateException("The invoice service refused " + name + " (HTTP 503)");
            }
            return Map.of("sent", name);
        }
    }
}
