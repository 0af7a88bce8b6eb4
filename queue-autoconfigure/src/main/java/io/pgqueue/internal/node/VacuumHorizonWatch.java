package io.pgqueue.internal.node;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.pgqueue.internal.persistence.VacuumHorizonRepository;
import io.pgqueue.model.VacuumHold;
import io.pgqueue.support.PeriodicLifecycle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Watches what holds back vacuum in pgqueue's database: every few seconds, the oldest transaction, prepared
 * transaction or replication slot. A hold older than the warning threshold is logged once, shown in health
 * and on the dashboard; while any hold is older than {@link #CLAIMS_FROM_CURSOR_AFTER}, claims read the ready
 * index from where the previous claim stopped instead of from its start (see {@code ClaimPositions}).
 */
public class VacuumHorizonWatch extends PeriodicLifecycle {

    /**
     * How long the horizon must have been held before claims start from a cursor. Shorter holds leave too few
     * dead index entries to matter, and claims keep their exact order.
     */
    public static final Duration CLAIMS_FROM_CURSOR_AFTER = Duration.ofSeconds(5);

    private static final Log logger = LogFactory.getLog(VacuumHorizonWatch.class);

    private final VacuumHorizonRepository repository;

    private final Duration interval;

    private final Duration warnAfter;

    private volatile @Nullable VacuumHold current;

    /** The horizon last seen, and since when this node has seen it there. */
    private @Nullable String seenHorizon;

    private Instant seenSince = Instant.EPOCH;

    private @Nullable String warnedHorizon;

    public VacuumHorizonWatch(VacuumHorizonRepository repository, Duration interval, Duration warnAfter) {
        super("pgqueue-vacuum-horizon");
        this.repository = repository;
        this.interval = interval;
        this.warnAfter = warnAfter;
    }

    @Override
    protected void schedule() {
        every(interval, Duration.ZERO, "vacuum horizon check", this::check);
    }

    /** Looks once: reads the oldest hold and keeps it. */
    public synchronized void check() {
        Optional<VacuumHorizonRepository.Held> found = repository.oldest();
        if (found.isEmpty()) {
            current = null;
            seenHorizon = null;
            return;
        }
        VacuumHorizonRepository.Held held = found.get();
        if (!held.horizon().equals(seenHorizon)) {
            seenHorizon = held.horizon();
            seenSince = held.hold().since();
        }
        VacuumHold hold = held.hold();
        Instant since = held.startKnown() ? hold.since() : seenSince;
        VacuumHold seen = new VacuumHold(hold.kind(), hold.holder(), hold.pid(), since, hold.xidAge());
        current = seen;
        Instant now = Instant.now();
        if (seen.age(now).compareTo(warnAfter) >= 0 && !held.horizon().equals(warnedHorizon)) {
            warnedHorizon = held.horizon();
            logger.warn("pgqueue: " + seen.describe(now) + ". Until it ends, vacuum can remove none of the row "
                    + "versions the queues leave behind (while it holds, claims read on from where the last one stopped).");
        }
    }

    /** The oldest hold at the last look, if any. */
    public Optional<VacuumHold> current() {
        return Optional.ofNullable(current);
    }

    /** Whether the horizon has been held for at least {@code age} as of the last look. */
    public boolean heldLongerThan(Duration age) {
        VacuumHold hold = current;
        return hold != null && hold.age(Instant.now()).compareTo(age) >= 0;
    }
}
