package com.example.consumer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import io.pgqueue.QueueOperations;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The starter, added as a plain dependency, starts and runs a job. */
@SpringBootTest
class ConsumerApplicationTests {

    private static final EmbeddedPostgres postgres = start();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> postgres.getJdbcUrl("postgres", "postgres"));
        registry.add("spring.datasource.username", () -> "postgres");
    }

    @Autowired
    QueueOperations queue;

    @Autowired
    ConsumerApplication.Greetings greetings;

    @Test
    void startsAndRunsAJob() {
        queue.send("greetings", new ConsumerApplication.Greeting("hello"));
        await().atMost(Duration.ofSeconds(20)).until(() -> greetings.received.contains("hello"));
        assertThat(greetings.received).containsExactly("hello");
    }

    @AfterAll
    static void stop() throws IOException {
        postgres.close();
    }

    private static EmbeddedPostgres start() {
        try {
            return EmbeddedPostgres.builder().start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
