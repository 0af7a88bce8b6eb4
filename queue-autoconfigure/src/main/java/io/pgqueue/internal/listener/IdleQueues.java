package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.pgqueue.internal.persistence.JobEnginePort;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Polls for every idle container of this node at once: a container whose last poll found nothing parks
 * here, and one statement per poll interval asks which of the parked containers' queues have ready jobs
 * (and are not paused), waking only those. A node listening to hundreds of quiet queues thus sends one poll
 * a second instead of one per queue. NOTIFY still wakes a container at once; due scheduled jobs become ready
 * through maintenance (so containers park only on nodes that run it at least as often as they would poll),
 * and a container that just scheduled a
 * retry or snooze wakes itself when it is due. A parked container also polls by itself after a long safety
 * interval, in case this poller fails.
 */
final class IdleQueues {

    private static final Log logger = LogFactory.getLog(IdleQueues.class);

    /** The most a parked container waits without polling by itself. */
    static final Duration SAFETY_INTERVAL = Duration.ofSeconds(30);

    private static final int IDLE_TICKS_BEFORE_END = 100;

    private final int idleTicksBeforeEnd;

    private final JobEnginePort jobs;

    /** How often this node's maintenance makes due jobs ready, or null when it runs none. */
    private final @Nullable Duration maintenanceInterval;

    /** The parked containers, with how many of their pollers are parked (a TRANSACTIONAL one has several). */
    private final Map<AbstractQueueListenerContainer, Integer> parked = new ConcurrentHashMap<>();

    private ScheduledExecutorService timer;

    private long lastPoll;

    /** Ticks in a row with nothing parked and nothing scheduled: after a while the thread ends. */
    private int emptyTicks;

    /**
     * @param jobs the job repository
     * @param maintenanceInterval how often this node's maintenance makes due jobs ready, or null when it runs
     * none (containers then poll by themselves, as their polls make their due jobs ready)
     */
    IdleQueues(JobEnginePort jobs, @Nullable Duration maintenanceInterval) {
        this(jobs, maintenanceInterval, IDLE_TICKS_BEFORE_END);
    }

    IdleQueues(JobEnginePort jobs, @Nullable Duration maintenanceInterval, int idleTicksBeforeEnd) {
        this.jobs = jobs;
        this.maintenanceInterval = maintenanceInterval;
        this.idleTicksBeforeEnd = idleTicksBeforeEnd;
    }

    /**
     * Whether the container may park rather than poll its queue by itself: when this node's maintenance makes
     * due jobs ready at least as often as the container would poll, and its queue has no cap or rate (whose
     * room frees up without a job becoming ready).
     */
    boolean mayPark(AbstractQueueListenerContainer container) {
        return maintenanceInterval != null && maintenanceInterval.compareTo(container.options().pollInterval()) <= 0
                && !container.options().throttled();
    }

    /** The container found nothing: it waits for a wake-up, found for it by the node's one idle poll. */
    void park(AbstractQueueListenerContainer container) {
        parked.merge(container, 1, Integer::sum);
        ensureRunning();
    }

    void unpark(AbstractQueueListenerContainer container) {
        parked.computeIfPresent(container, (key, pollers) -> (pollers > 1) ? pollers - 1 : null);
    }

    /** Wakes the container when the job it just gave a delay (a retry's backoff, a snooze) is due. */
    void wakeAfter(AbstractQueueListenerContainer container, Duration delay) {
        if (maintenanceInterval == null) {
            return;
        }
        // under the lock: the timer must not end between being found running and taking the wake-up (which
        // then failed, in the worker that recorded the retry, and marked its container broken)
        synchronized (this) {
            ensureRunning().schedule(container::wakeUp, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        }
    }

    /** Whether the timer thread runs now. */
    synchronized boolean timerRunning() {
        return timer != null;
    }

    private synchronized ScheduledExecutorService ensureRunning() {
        if (timer == null) {
            // a ScheduledThreadPoolExecutor itself, not the wrapper Executors hands out: endWhenUnused() reads
            // its queue, and with the wrapper the thread never ended
            timer = new java.util.concurrent.ScheduledThreadPoolExecutor(1, (task) -> {
                Thread thread = new Thread(task, "pgqueue-idle-poll");
                thread.setDaemon(true);
                return thread;
            });
            timer.scheduleWithFixedDelay(this::tick, 50, 50, TimeUnit.MILLISECONDS);
        }
        return timer;
    }

    /** Ends the thread once nothing has been parked or scheduled for a few seconds (e.g. after shutdown). */
    private synchronized void endWhenUnused() {
        if (!parked.isEmpty()) {
            // parked after the tick looked: its park() found this timer running and relies on it
            emptyTicks = 0;
            return;
        }
        if (timer instanceof java.util.concurrent.ScheduledThreadPoolExecutor executor
                && executor.getQueue().size() <= 1 && ++emptyTicks > idleTicksBeforeEnd) {
            timer.shutdown();
            timer = null;
            emptyTicks = 0;
        }
    }

    /** Polls once the shortest poll interval of the parked containers has passed since the last poll. */
    private void tick() {
        try {
            if (parked.isEmpty()) {
                endWhenUnused();
                return;
            }
            emptyTicks = 0;
            long interval = parked.keySet().stream().mapToLong((c) -> c.options().pollInterval().toNanos()).min()
                .orElse(Long.MAX_VALUE);
            long now = System.nanoTime();
            if (now - lastPoll < interval) {
                return;
            }
            lastPoll = now;
            List<AbstractQueueListenerContainer> containers = new ArrayList<>(parked.keySet());
            String[] queues = containers.stream().map(AbstractQueueListenerContainer::queue).distinct()
                .toArray(String[]::new);
            Set<String> ready = Set.copyOf(jobs.readyQueues(queues));
            containers.stream().filter((container) -> ready.contains(container.queue()))
                .forEach(AbstractQueueListenerContainer::wakeUp);
        }
        catch (RuntimeException ex) {
            // the parked containers poll by themselves after the safety interval
            logger.debug("pgqueue idle poll failed: " + ex.getMessage());
        }
        catch (Throwable ex) {
            // an Error escaping a periodic task cancels it for good, leaving parked containers to the safety poll
            logger.error("pgqueue idle poll failed with an error (will poll again)", ex);
        }
    }
}
