package io.pgqueue.support;

import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;

import org.springframework.context.ApplicationContext;

/**
 * The listener containers of a test's application.
 */
public final class Containers {

    private Containers() {
    }

    /** The container of the queue's listener. */
    public static QueueListenerContainer of(ApplicationContext context, String queue) {
        return context.getBean(QueueListenerContainerRegistry.class)
            .getListenerContainers()
            .stream()
            .filter((container) -> container.queue().equals(queue))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("No listener container for queue '" + queue + "'"));
    }
}
