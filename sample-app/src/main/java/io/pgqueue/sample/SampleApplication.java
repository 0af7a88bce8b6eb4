package io.pgqueue.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The pgqueue sample: meter readings arrive over HTTP and are processed through queues.
 * Run it with no configuration and it starts its own PostgreSQL (see {@link DevelopmentDatabase}).
 */
@SpringBootApplication
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(SampleApplication.class);
        application.addListeners(new DevelopmentDatabase());
        application.run(args);
    }
}
