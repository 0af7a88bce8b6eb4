package io.pgqueue.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.MessageProperties;
import io.pgqueue.benchmark.BenchServer.Database;

/**
 * A broker in the same run: RabbitMQ with what a job needs from it — a durable queue, persistent messages,
 * publisher confirms (a send returns once the broker has the message safe) and manual acknowledgements
 * (a message is gone only once its consumer acknowledged it) — beside pgqueue's send, batch send, drain and
 * pickup on the same machine. The broker is the one at {@code PGQUEUE_BENCH_AMQP_URI} (default
 * {@code amqp://guest:guest@127.0.0.1:5672}); without one answering, the scenario is skipped with a message.
 */
final class BrokerScenario {

    private static final String QUEUE = "pgqueue-bench";

    private static final int SEND_THREADS = 8;

    private static final int BATCH_THREADS = 4;

    private static final int BATCH = 100;

    /** Consumers (a channel each, on connections of their own) and the deliveries each may hold unacknowledged. */
    private static final int CONSUMERS = 8;

    private static final int PREFETCH = 250;

    private BrokerScenario() {
    }

    static List<Result> run(Scenarios scenarios, BenchServer server, Scenarios.Sizes sizes) throws Exception {
        String uri = System.getenv().getOrDefault("PGQUEUE_BENCH_AMQP_URI", "amqp://guest:guest@127.0.0.1:5672");
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        factory.setConnectionTimeout(2_000);
        String version;
        try (Connection probe = factory.newConnection("pgqueue-bench-probe"); Channel channel = probe.createChannel()) {
            version = String.valueOf(probe.getServerProperties().get("version"));
            channel.queueDeclare(QUEUE, true, false, false, Map.of());
        }
        catch (IOException | TimeoutException ex) {
            System.out.println("   broker: skipped, no RabbitMQ answers at " + uri.replaceAll("//[^@]*@", "//")
                    + " (" + ex.getMessage() + "); set PGQUEUE_BENCH_AMQP_URI to measure one");
            return List.of();
        }
        String broker = "RabbitMQ " + version;
        String method = "; baseline column = " + broker + " (durable classic queue, persistent messages, publisher "
                + "confirms, manual acks); " + Scenarios.Pair.METHOD;
        List<Result> results = new ArrayList<>();
        try (Database database = server.createDatabase("broker", SEND_THREADS);
                PgQueueApp app = PgQueueApp.start(database, SEND_THREADS, Map.of("pgqueue.maintenance.enabled", "false"))) {
            Scenarios.Pair send = Scenarios.interleaved(
                    Scenarios.sends(database, app.template(), SEND_THREADS, sizes.sends()),
                    () -> publish(factory, SEND_THREADS, sizes.sends(), 1));
            results.add(new Result("broker", "send, 1 per call, " + SEND_THREADS + " threads, vs publish + confirm",
                    send.pgqueue(), send.baseline(), "jobs/s", true, sizes.sends() + " jobs" + method));
            int batches = sizes.batchRows() / BATCH;
            Scenarios.Pair batch = Scenarios.interleaved(
                    Scenarios.batchSends(database, app.template(), BATCH_THREADS, batches, BATCH),
                    () -> publish(factory, BATCH_THREADS, batches * BATCH, BATCH));
            results.add(new Result("broker", "sendBatch of " + BATCH + ", " + BATCH_THREADS + " threads, vs "
                    + BATCH + " publishes + one confirm wait", batch.pgqueue(), batch.baseline(), "jobs/s", true,
                    (batches * BATCH) + " jobs" + method));
        }
        Scenarios.Setting best = new Scenarios.Setting(128, 100);
        int jobs = sizes.drainJobs();
        Scenarios.Pair drain = Scenarios.interleaved(settled(() -> scenarios.drainPgqueue("LEASE", best, jobs, true, true)),
                settled(() -> drain(factory, jobs)));
        results.add(new Result("broker", "drain, pgqueue LEASE " + best + " vs " + CONSUMERS + " consumers, prefetch "
                + PREFETCH + ", an ack per message", drain.pgqueue(), drain.baseline(), "jobs/s", true,
                jobs + " no-op jobs preloaded; each round followed by a " + SETTLE.toSeconds() + " s pause" + method));
        Latencies ours = scenarios.pickupPgqueue(Scenarios.PickupVariant.NOTIFY);
        Latencies theirs = pickup(factory, sizes.pickup());
        for (double p : new double[] { 50, 99 }) {
            results.add(new Result("broker", "pickup from another application, 1 job / 50 ms, p" + (int) p,
                    ours.percentileMillis(p), theirs.percentileMillis(p), "ms", false,
                    "pgqueue: NOTIFY; the broker: a consumer on its own connection, the publisher waiting for each "
                            + "confirm; send to handler start; baseline column = " + broker));
        }
        return results;
    }

    /**
     * A pause after each drain round, on either side: the broker goes on working for a while after its queue is
     * empty (its message store, the Erlang schedulers' spinning), on the same two cores as the next round.
     */
    private static final Duration SETTLE = Duration.ofSeconds(3);

    private static java.util.concurrent.Callable<Double> settled(java.util.concurrent.Callable<Double> round) {
        return () -> {
            double rate = round.call();
            LockSupport.parkNanos(SETTLE.toNanos());
            return rate;
        };
    }

    private static byte[] body(long n) {
        return ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static void purge(ConnectionFactory factory) throws Exception {
        try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
            channel.queuePurge(QUEUE);
        }
    }

    /**
     * Publishes {@code jobs} persistent messages from {@code threads} threads (a connection each), waiting for
     * the broker's confirms after every {@code batch} messages; returns messages per second.
     */
    static double publish(ConnectionFactory factory, int threads, int jobs, int batch) throws Exception {
        purge(factory);
        int perThread = jobs / threads / batch * batch;
        List<Connection> connections = new ArrayList<>();
        List<Channel> channels = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                Connection connection = factory.newConnection();
                connections.add(connection);
                Channel channel = connection.createChannel();
                channel.confirmSelect();
                channels.add(channel);
            }
            return Scenarios.rate((long) perThread * threads, () -> Scenarios.parallel(threads, (t) -> {
                Channel channel = channels.get(t);
                for (int i = 0; i < perThread; i += batch) {
                    for (int j = 0; j < batch; j++) {
                        channel.basicPublish("", QUEUE, MessageProperties.PERSISTENT_BASIC, body(i + j));
                    }
                    channel.waitForConfirmsOrDie(30_000);
                }
            }));
        }
        finally {
            for (Connection connection : connections) {
                connection.close();
            }
        }
    }

    /** Preloads {@code jobs} messages, then times consumers acknowledging each; returns messages per second. */
    static double drain(ConnectionFactory factory, int jobs) throws Exception {
        publish(factory, BATCH_THREADS, jobs, BATCH);
        CountDownLatch drained = new CountDownLatch(jobs / BATCH_THREADS / BATCH * BATCH * BATCH_THREADS);
        List<Connection> connections = new ArrayList<>();
        try {
            List<Channel> channels = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                Connection connection = factory.newConnection();
                connections.add(connection);
                Channel channel = connection.createChannel();
                channel.basicQos(PREFETCH);
                channels.add(channel);
            }
            return Scenarios.rate(drained.getCount(), () -> {
                for (Channel channel : channels) {
                    channel.basicConsume(QUEUE, false, new DefaultConsumer(channel) {
                        @Override
                        public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                                byte[] body) throws IOException {
                            getChannel().basicAck(envelope.getDeliveryTag(), false);
                            drained.countDown();
                        }
                    });
                }
                if (!drained.await(5, TimeUnit.MINUTES)) {
                    throw new IllegalStateException(drained.getCount() + " messages left after 5 minutes");
                }
            });
        }
        finally {
            for (Connection connection : connections) {
                connection.close();
            }
        }
    }

    /**
     * A consumer on its own connection, a publisher on another sending one persistent message every 50 ms and
     * waiting for its confirm, as a job is sent; returns the publish-to-delivery latencies.
     */
    static Latencies pickup(ConnectionFactory factory, Duration duration) throws Exception {
        purge(factory);
        Latencies latencies = new Latencies(100_000);
        int jobs = (int) (duration.toMillis() / 50);
        AtomicLong received = new AtomicLong();
        try (Connection consumerConnection = factory.newConnection();
                Connection publisherConnection = factory.newConnection()) {
            Channel consumer = consumerConnection.createChannel();
            consumer.basicQos(PREFETCH);
            consumer.basicConsume(QUEUE, false, new DefaultConsumer(consumer) {
                @Override
                public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                        byte[] body) throws IOException {
                    latencies.record(System.nanoTime() - Long.parseLong(new String(body, StandardCharsets.UTF_8)));
                    getChannel().basicAck(envelope.getDeliveryTag(), false);
                    received.incrementAndGet();
                }
            });
            Channel publisher = publisherConnection.createChannel();
            publisher.confirmSelect();
            for (int i = 0; i < jobs; i++) {
                publisher.basicPublish("", QUEUE, MessageProperties.PERSISTENT_BASIC,
                        Long.toString(System.nanoTime()).getBytes(StandardCharsets.UTF_8));
                publisher.waitForConfirmsOrDie(10_000);
                LockSupport.parkNanos(50_000_000);
            }
            Scenarios.awaitHandled(received::get, jobs, 5);
        }
        return latencies;
    }
}
