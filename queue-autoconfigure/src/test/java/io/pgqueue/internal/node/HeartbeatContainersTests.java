package io.pgqueue.internal.node;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.pgqueue.internal.persistence.NodeRepository;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.DeliveryMode;
import io.pgqueue.model.NodeContainer;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node's containers travel with its heartbeat only when they changed (and now and then, for their in-flight
 * counts): at 500 containers that is about 75 KB a heartbeat the database no longer rewrites. What operators
 * read stays what the node runs.
 */
class HeartbeatContainersTests {

    private static final TestDatabase database = TestPostgres.createDatabase(HeartbeatContainersTests.class);

    /** Counts the heartbeats that carried the containers. */
    static final class CountingNodes implements NodeRepository {

        final NodeRepository target;

        final AtomicInteger heartbeats = new AtomicInteger();

        final AtomicInteger withContainers = new AtomicInteger();

        CountingNodes(NodeRepository target) {
            this.target = target;
        }

        @Override
        public List<Long> heartbeat(UUID node, String host, long pid, Duration lease, long[] runningJobIds,
                @Nullable List<NodeContainer> containers, Duration timeout) {
            heartbeats.incrementAndGet();
            if (containers != null) {
                withContainers.incrementAndGet();
            }
            return target.heartbeat(node, host, pid, lease, runningJobIds, containers, timeout);
        }

        @Override
        public void unregister(UUID node) {
            target.unregister(node);
        }

        @Override
        public List<ClusterNode> nodes() {
            return target.nodes();
        }
    }

    @Test
    void unchangedContainersAreNotRewrittenEveryHeartbeat() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.maintenance.enabled=false").run((context) -> {
            Repositories repositories = context.getBean(Repositories.class);
            CountingNodes nodes = new CountingNodes(repositories.nodes());
            NodeRuntime node = new NodeRuntime(nodes, repositories.engine(), NodeIdentity.create(), new NodeSettings(
                    Duration.ofSeconds(10), Duration.ofMillis(50), Duration.ofSeconds(3), Duration.ofSeconds(1),
                    Duration.ofSeconds(1)));
            List<NodeContainer> containers = IntStream.range(0, 500)
                .mapToObj((i) -> new NodeContainer("queue-" + i + "-1", "queue-" + i, DeliveryMode.LEASE, 8, 10, 0, true))
                .toList();
            node.describeContainers(() -> containers);
            node.start();
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> nodes.heartbeats.get() >= 30);
                // the first heartbeat, then once every sixth
                assertThat(nodes.withContainers.get()).isLessThanOrEqualTo(nodes.heartbeats.get() / 6 + 2);
                assertThat(repositories.nodes().nodes()).filteredOn((n) -> n.id().equals(node.identity().id()))
                    .singleElement()
                    .satisfies((n) -> assertThat(n.containers()).hasSize(500));
            }
            finally {
                node.stop();
            }
        });
    }
}
