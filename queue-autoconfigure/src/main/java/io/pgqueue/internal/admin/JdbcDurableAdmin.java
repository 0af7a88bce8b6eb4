package io.pgqueue.internal.admin;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.pgqueue.admin.DurableAdmin;
import io.pgqueue.internal.persistence.DurableRepository;
import io.pgqueue.model.EventKeys;
import io.pgqueue.model.JobStep;
import io.pgqueue.model.JobWait;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** Durable execution's operations on one database. */
final class JdbcDurableAdmin implements DurableAdmin {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final DurableRepository repository;

    private final Duration eventRetention;

    JdbcDurableAdmin(DurableRepository repository, Duration eventRetention) {
        this.repository = repository;
        this.eventRetention = eventRetention;
    }

    @Override
    public List<JobStep> steps(long jobId, boolean content) {
        return repository.stepsOf(jobId).stream()
            .map((step) -> new JobStep(step.name(), step.occurrence(), step.kind(), content ? step.resultJson() : null,
                    step.startedAt(), step.finishedAt()))
            .toList();
    }

    @Override
    public Optional<JobWait> waitOf(long jobId) {
        return Optional.ofNullable(repository.waitOf(jobId))
            .map((wait) -> new JobWait(wait.kind(), wait.eventKey(), wait.childId(), wait.until(), wait.since()));
    }

    @Override
    public boolean wake(long jobId) {
        return repository.wake(jobId);
    }

    @Override
    public boolean emit(String key, @Nullable String payloadJson) {
        EventKeys.check(key);
        if (payloadJson != null) {
            try {
                JSON.readTree(payloadJson);
            }
            catch (JacksonException ex) {
                throw new IllegalArgumentException("The payload of event '" + key + "' is not JSON: "
                        + ex.getOriginalMessage(), ex);
            }
        }
        return repository.emit(key, payloadJson, eventRetention);
    }
}
