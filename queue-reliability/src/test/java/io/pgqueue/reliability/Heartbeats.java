package io.pgqueue.reliability;

import java.time.Duration;

import io.pgqueue.config.QueueListenerContainerRegistry;

import org.springframework.context.ApplicationContext;

/**
 * How long ago an application's node last completed a heartbeat.
 */
final class Heartbeats {

    private Heartbeats() {
    }

    /** The age of the last heartbeat, or zero before the first. */
    static Duration age(ApplicationContext context) {
        Duration age = context.getBean(QueueListenerContainerRegistry.class).heartbeatAge();
        return (age != null) ? age : Duration.ZERO;
    }
}
