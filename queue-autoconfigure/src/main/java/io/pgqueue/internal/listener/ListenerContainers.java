package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.persistence.HistoryRepository;
import io.pgqueue.internal.persistence.JobEnginePort;
import io.pgqueue.internal.workflow.JdbcWorkflows;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.JobInterceptor;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.listener.adapter.MethodJobHandler;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.model.DeliveryMode;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Builds the engine of a listener: the container of its delivery mode around an executor that runs the
 * handler and turns what happened into outcomes. The only public type of the engine.
 */
public final class ListenerContainers {

    private final JobEnginePort jobs;

    private final NodeRuntime node;

    private final JsonMapper mapper;

    private final QueueErrorHandler errorHandler;

    private final JobObserver observer;

    private final ProcessObserver processObserver;

    private final IdleQueues idle;

    private final HistoryRepository history;

    private final @Nullable VacuumHorizonWatch vacuumHorizon;

    private final JdbcWorkflows workflows;

    private final Consumer<String> roomMade;

    private final List<JobInterceptor> interceptors;

    private final @Nullable DurableRuns durable;

    /**
     * @param roomMade told the queue when a job of a capped queue that claims found full left the running state:
     * wakes the queue's containers on the other nodes (a debounced NOTIFY), which would otherwise wait for their
     * poll interval to find the room
     * @param interceptors the application's interceptors, outermost first
     */
    public ListenerContainers(JobEnginePort jobs, HistoryRepository history, NodeRuntime node, JsonMapper mapper, QueueErrorHandler errorHandler,
            JobObserver observer, ProcessObserver processObserver, @Nullable Duration maintenanceInterval,
            @Nullable VacuumHorizonWatch vacuumHorizon, JdbcWorkflows workflows, Consumer<String> roomMade,
            List<JobInterceptor> interceptors) {
        this(jobs, history, node, mapper, errorHandler, observer, processObserver, maintenanceInterval, vacuumHorizon,
                workflows, roomMade, interceptors, null);
    }

    /**
     * @param durable durable execution's steps, waits and events (null: listeners' durable calls fail)
     */
    public ListenerContainers(JobEnginePort jobs, HistoryRepository history, NodeRuntime node, JsonMapper mapper, QueueErrorHandler errorHandler,
            JobObserver observer, ProcessObserver processObserver, @Nullable Duration maintenanceInterval,
            @Nullable VacuumHorizonWatch vacuumHorizon, JdbcWorkflows workflows, Consumer<String> roomMade,
            List<JobInterceptor> interceptors, @Nullable DurableRuns durable) {
        this.durable = durable;
        this.roomMade = roomMade;
        this.interceptors = List.copyOf(interceptors);
        this.vacuumHorizon = vacuumHorizon;
        this.workflows = workflows;
        this.idle = new IdleQueues(jobs, maintenanceInterval);
        this.jobs = jobs;
        this.history = history;
        this.node = node;
        this.mapper = mapper;
        this.errorHandler = errorHandler;
        this.observer = observer;
        this.processObserver = processObserver;
    }

    /**
     * @param transactionManager the application's transaction manager, needed by TRANSACTIONAL delivery
     * @throws IllegalStateException naming the method when TRANSACTIONAL delivery has no transaction manager
     */
    public QueueListenerContainer create(ContainerOptions options, MethodJobHandler handler,
            @Nullable PlatformTransactionManager transactionManager) {
        JobExecutor executor = new JobExecutor(handler, errorHandler, options.backoff(), mapper, observer,
                options.timeout(), processObserver, options.mode().name().toLowerCase(java.util.Locale.ROOT),
                history.enabled(), (job) -> workflows.context(job.id(), java.util.Objects.requireNonNull(job.workflowId())),
                (options.mode() == DeliveryMode.LEASE) ? () -> false : jobs::transactionAborted, interceptors, durable);
        if (options.mode() == DeliveryMode.LEASE) {
            return new LeaseQueueListenerContainer(options, executor, jobs, node, idle, new ClaimPositions(vacuumHorizon),
                    roomMade);
        }
        if (transactionManager == null) {
            throw new IllegalStateException("@QueueListener method " + handler.describe()
                    + " uses TRANSACTIONAL delivery, which needs a single PlatformTransactionManager bean on the "
                    + "queue's DataSource; none was found");
        }
        return new TransactionalQueueListenerContainer(options, executor, jobs, history,
                new TransactionTemplate(transactionManager),
                node.settings().shutdownTimeout(), node.settings().interruptGrace(), idle,
                new ClaimPositions(vacuumHorizon));
    }
}
