package io.pgqueue.docs.snippets.otherlanguages;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;

import org.springframework.stereotype.Component;

interface Mailer {

    void confirm(long orderId, long totalCents, String trace);
}

// tag::listener[]
record OrderPlaced(long orderId, long totalCents) {
}

@Component
class OrderConfirmations {

    private final Mailer mailer;

    OrderConfirmations(Mailer mailer) {
        this.mailer = mailer;
    }

    @QueueListener(queue = "order-confirmations")
    void confirm(OrderPlaced order, JobContext job) {
        mailer.confirm(order.orderId(), order.totalCents(), job.headers().getOrDefault("traceparent", "none"));
    }
}
// end::listener[]
