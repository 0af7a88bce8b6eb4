package io.pgqueue.sample;

import java.util.Map;

import io.pgqueue.testsupport.EmbeddedPostgresServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * When {@code spring.datasource.url} is not set, starts an embedded PostgreSQL for this run and points the
 * datasource at it, so the sample needs no setup. With a URL set, does nothing.
 */
class DevelopmentDatabase implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

    private static final Logger logger = LoggerFactory.getLogger(DevelopmentDatabase.class);

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        ConfigurableEnvironment environment = event.getEnvironment();
        if (environment.containsProperty("spring.datasource.url")) {
            return;
        }
        // stopped once the application has shut down, not by a JVM shutdown hook of its own: hooks run at once,
        // and the database would be gone while the application still gives its jobs back and leaves the cluster
        EmbeddedPostgresServer server = EmbeddedPostgresServer.start(Map.of(), false);
        SpringApplication.getShutdownHandlers().add(server::close);
        String url = server.jdbcUrl("postgres");
        logger.info("No spring.datasource.url set: started an embedded PostgreSQL at {} (user postgres)", url);
        environment.getPropertySources()
            .addFirst(new MapPropertySource("pgqueueSampleDevelopmentDatabase",
                    Map.of("spring.datasource.url", url, "spring.datasource.username", server.username(),
                            "spring.datasource.password", server.password())));
    }
}
