package io.pgqueue.internal.routing;

import java.util.List;

import io.pgqueue.admin.FairnessAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.model.FairnessKeyCounts;
import io.pgqueue.model.FairnessKeyInfo;

/**
 * Fairness keys across databases: a queue's keys go to its database.
 */
final class RoutingFairnessAdmin implements FairnessAdmin {

    private final AdminRoutes routes;

    RoutingFairnessAdmin(AdminRoutes routes) {
        this.routes = routes;
    }

    @Override
    public void setFairnessWeight(String queue, String key, double weight) {
        routes.of(queue).setFairnessWeight(queue, key, weight);
    }

    @Override
    public void clearFairnessWeight(String queue, String key) {
        routes.of(queue).clearFairnessWeight(queue, key);
    }

    @Override
    public void pauseFairnessKey(String queue, String key) {
        routes.of(queue).pauseFairnessKey(queue, key);
    }

    @Override
    public void resumeFairnessKey(String queue, String key) {
        routes.of(queue).resumeFairnessKey(queue, key);
    }

    @Override
    public List<FairnessKeyInfo> fairnessKeys(String queue, int limit) {
        return routes.of(queue).fairnessKeys(queue, limit);
    }

    @Override
    public List<FairnessKeyCounts> fairnessKeyCounts() {
        return routes.all(QueueAdmin::fairnessKeyCounts);
    }
}
