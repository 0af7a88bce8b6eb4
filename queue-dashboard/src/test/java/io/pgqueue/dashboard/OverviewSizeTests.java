package io.pgqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgqueue.model.JobState;
import io.pgqueue.model.QueueCounts;
import io.pgqueue.model.QueueStats;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The overview every open page fetches every refresh: at 300 queues with the whole kept history (15 minutes of
 * samples a second apart) it carries each queue's sparkline (60 points, what the page draws) and the cluster's
 * whole chart, not 15 minutes of every queue. Before, that was about 17 MB a refresh.
 */
class OverviewSizeTests {

    @Test
    void threeHundredQueuesWithAFullHistoryFitInAFewHundredKilobytes() {
        ThroughputHistory history = new ThroughputHistory();
        Instant start = Instant.parse("2026-11-23T12:00:00Z");
        ThroughputHistory.Rates rates = null;
        List<QueueStats> queues = List.of();
        // a sample every refresh (2 s) for longer than the history keeps
        for (int second = 0; second <= ThroughputHistory.KEPT.toSeconds() + 60; second += 2) {
            queues = queues(300, second);
            rates = history.record(start.plus(Duration.ofSeconds(second)), queues);
        }

        ThroughputHistory.Rates kept = rates;
        DashboardViews.Overview overview = DashboardViews.Overview.of(start, queues, kept, 3, null, List.of());
        int bytes = JsonMapper.builder().findAndAddModules().build().writeValueAsBytes(overview).length;

        assertThat(overview.queues()).hasSize(300)
            .allSatisfy((queue) -> assertThat(queue.rates()).hasSize(DashboardViews.QueueView.SPARK_POINTS));
        assertThat(overview.rates()).as("the cluster's chart keeps the whole history").hasSizeGreaterThan(400);
        System.out.println("overview at 300 queues: " + bytes + " bytes; with every queue's whole history: "
                + JsonMapper.builder().findAndAddModules().build().writeValueAsBytes(new DashboardViews.Overview(start,
                        overview.cluster(), queues.stream().map((stats) -> DashboardViews.QueueView.of(stats, kept)).toList(),
                        3, overview.rates(), null, List.of())).length + " bytes");
        assertThat(bytes).as("overview bytes at 300 queues").isLessThan(2_500_000);
    }

    private static List<QueueStats> queues(int count, int second) {
        List<QueueStats> queues = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            queues.add(new QueueStats(new QueueCounts("queue-" + i, Map.of(JobState.READY, 1L), 10L * second,
                    10L * second, second, 0, 0), Duration.ZERO, false));
        }
        return queues;
    }
}
