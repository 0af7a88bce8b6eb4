package io.pgqueue.internal.admin;

import java.util.List;

import io.pgqueue.admin.FairnessAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.persistence.FairnessRepository;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.FairnessKeyCounts;
import io.pgqueue.model.FairnessKeyInfo;
import io.pgqueue.model.QueueNames;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The fairness keys of fair queues: weights, pausing one key, their counts.
 */
final class JdbcFairnessAdmin implements FairnessAdmin {

    private static final Log logger = LogFactory.getLog(QueueAdmin.class);

    private final FairnessRepository fairness;

    private final Wakeups wakeups;

    JdbcFairnessAdmin(FairnessRepository fairness, Wakeups wakeups) {
        this.fairness = fairness;
        this.wakeups = wakeups;
    }

    @Override
    public void setFairnessWeight(String queue, String key, double weight) {
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("A fairness weight must be a number above zero: " + weight);
        }
        fairness.setWeight(QueueNames.validate(queue), fairnessKey(queue, key), weight);
        logger.info("Fairness key '" + key + "' of queue '" + queue + "' weighs " + weight);
    }

    @Override
    public void clearFairnessWeight(String queue, String key) {
        fairness.setWeight(QueueNames.validate(queue), fairnessKey(queue, key), null);
        logger.info("Fairness key '" + key + "' of queue '" + queue + "' weighs as configured");
    }

    @Override
    public void pauseFairnessKey(String queue, String key) {
        fairness.setPaused(QueueNames.validate(queue), fairnessKey(queue, key), true);
        logger.info("Fairness key '" + key + "' of queue '" + queue + "' paused");
    }

    @Override
    public void resumeFairnessKey(String queue, String key) {
        fairness.setPaused(QueueNames.validate(queue), fairnessKey(queue, key), false);
        wakeups.jobsReady(queue);
        logger.info("Fairness key '" + key + "' of queue '" + queue + "' resumed");
    }

    @Override
    public List<FairnessKeyInfo> fairnessKeys(String queue, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1: " + limit);
        }
        return fairness.keys(QueueNames.validate(queue), limit);
    }

    /** A fairness key as a send accepts it: 1 to 512 characters. */
    @Override
    public List<FairnessKeyCounts> fairnessKeyCounts() {
        return fairness.keyCounts();
    }

    /** The key an operation names: the key itself, or the handle a masked listing showed for it. */
    private String fairnessKey(String queue, String key) {
        if (key == null || key.isEmpty() || key.length() > 512) {
            throw new IllegalArgumentException("A fairness key must have 1 to 512 characters: " + key);
        }
        if (FairnessKeyInfo.isHandle(key)) {
            String handled = fairness.keyOfHandle(queue, key);
            if (handled != null) {
                return handled;
            }
        }
        return key;
    }
}
