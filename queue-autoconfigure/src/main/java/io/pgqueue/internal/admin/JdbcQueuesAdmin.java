package io.pgqueue.internal.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import io.pgqueue.admin.ClusterAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.admin.QueuesAdmin;
import io.pgqueue.admin.SchedulesAdmin;
import io.pgqueue.internal.persistence.QueueStatsRepository;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.NodeContainer;
import io.pgqueue.model.QueueCounts;
import io.pgqueue.model.QueueListenerNode;
import io.pgqueue.model.QueueNames;
import io.pgqueue.model.QueueStats;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Queues: their counts with the nodes listening and the schedules sending, pausing, and the repair of counter drift.
 */
final class JdbcQueuesAdmin implements QueuesAdmin {

    private static final Log logger = LogFactory.getLog(QueueAdmin.class);

    private final QueueStatsRepository stats;

    private final ClusterAdmin cluster;

    private final SchedulesAdmin schedules;

    private final Wakeups wakeups;

    JdbcQueuesAdmin(QueueStatsRepository stats, ClusterAdmin cluster, SchedulesAdmin schedules, Wakeups wakeups) {
        this.stats = stats;
        this.cluster = cluster;
        this.schedules = schedules;
        this.wakeups = wakeups;
    }

    /**
     * Every queue the counters know, and every queue a node listens to or a schedule sends to (with zero counts
     * until its first job), with counts, lag, pause state and the nodes listening; sorted by name.
     */
    @Override
    public List<QueueStats> queues() {
        Map<String, QueueCounts> counts = new TreeMap<>();
        stats.counts().forEach((c) -> counts.put(c.queue(), c));
        Map<String, List<QueueListenerNode>> listeners = new HashMap<>();
        for (ClusterNode node : cluster.nodes()) {
            for (NodeContainer container : node.containers()) {
                listeners.computeIfAbsent(container.queue(), (queue) -> new ArrayList<>())
                    .add(QueueListenerNode.of(node, container));
            }
        }
        listeners.keySet().forEach((queue) -> counts.computeIfAbsent(queue, JdbcQueuesAdmin::noJobs));
        schedules.schedules().forEach((schedule) -> counts.computeIfAbsent(schedule.queue(), JdbcQueuesAdmin::noJobs));
        Map<String, Duration> lags = stats.lags();
        Set<String> paused = stats.pausedQueues();
        return counts.values()
            .stream()
            .map((c) -> new QueueStats(c, lags.get(c.queue()), paused.contains(c.queue()),
                    listeners.getOrDefault(c.queue(), List.of())))
            .toList();
    }

    private static QueueCounts noJobs(String queue) {
        return new QueueCounts(queue, Map.of(), 0, 0, 0, 0, 0);
    }

    @Override
    public Optional<QueueStats> queue(String queue) {
        QueueNames.validate(queue);
        return queues().stream().filter((stats) -> stats.queue().equals(queue)).findFirst();
    }

    @Override
    public void pause(String queue) {
        stats.setPaused(QueueNames.validate(queue), true);
        logger.info("Queue '" + queue + "' paused");
    }

    /**
     * Lets the queue's jobs be claimed again; its listeners on every node are woken at once (when NOTIFY is
     * on), not at their next poll.
     */
    @Override
    public void resume(String queue) {
        stats.setPaused(QueueNames.validate(queue), false);
        wakeups.jobsReady(queue);
        logger.info("Queue '" + queue + "' resumed");
    }

    @Override
    public boolean isPaused(String queue) {
        return stats.pausedQueues().contains(queue);
    }

    @Override
    public Set<String> pausedQueues() {
        return stats.pausedQueues();
    }

    @Override
    public List<QueueCounts> reconcile() {
        stats.squeeze();
        List<QueueCounts> drift = stats.reconcile();
        drift.forEach((d) -> logger.warn("Counter drift repaired for queue '" + d.queue() + "': scheduled "
                + d.scheduled() + ", ready " + d.ready() + ", running " + d.running() + ", dead " + d.dead()));
        stats.squeeze();
        return drift;
    }
}
