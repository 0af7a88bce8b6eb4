package io.pgqueue.internal.persistence;

import java.util.EnumSet;
import java.util.Set;

import io.pgqueue.admin.AdminAction;
import io.pgqueue.admin.AdminAction.Target;
import io.pgqueue.model.JobState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The action catalogue both front doors use says of each job action the states the lifecycle's transitions
 * really change: it cannot offer cancel on a job no transition cancels, or miss a state one does.
 */
class AdminActionCatalogueTests {

    @Test
    void jobActionsApplyToTheStatesTheirTransitionsLeave() {
        Set<JobState> cancellable = EnumSet.noneOf(JobState.class);
        cancellable.addAll(Transition.CANCEL.from());
        // a running job's cancellation is requested, and finished by CANCEL_RUNNING
        cancellable.addAll(Transition.CANCEL_RUNNING.from());
        assertThat(AdminAction.CANCEL.appliesTo()).isEqualTo(cancellable);
        assertThat(AdminAction.RETRY.appliesTo()).isEqualTo(Transition.RETRY_DEAD.from());
        assertThat(AdminAction.PURGE.appliesTo()).isEqualTo(Transition.PURGE.from());
        // a parked job is scheduled: a SNOOZE put it there, and its wake makes it due
        assertThat(AdminAction.WAKE.appliesTo()).isEqualTo(EnumSet.of(JobState.SCHEDULED))
            .isSubsetOf(Transition.SNOOZE.to());
        for (AdminAction action : AdminAction.values()) {
            assertThat(action.appliesTo().isEmpty()).as(action.name()).isEqualTo(action.target() != Target.JOB);
        }
    }

    @Test
    void frontDoorsShareOneVocabularyAndStillReadTheOlderSpellings() {
        assertThat(AdminAction.of(Target.QUEUE, "retry")).isEqualTo(AdminAction.RETRY);
        assertThat(AdminAction.of(Target.QUEUE, "retry-dead")).isEqualTo(AdminAction.RETRY);
        assertThat(AdminAction.of(Target.QUEUE, "PURGE-DEAD")).isEqualTo(AdminAction.PURGE);
        assertThat(AdminAction.of(Target.JOB, "delete")).isEqualTo(AdminAction.PURGE);
        assertThat(AdminAction.of(Target.QUEUE, "pause")).isEqualTo(AdminAction.PAUSE);
        assertThat(AdminAction.of(Target.SCHEDULE, "pause")).isEqualTo(AdminAction.PAUSE_SCHEDULE);
        assertThat(AdminAction.forJob(JobState.DEAD)).containsExactly(AdminAction.RETRY, AdminAction.PURGE);
        assertThat(AdminAction.forJob(JobState.RUNNING)).containsExactly(AdminAction.CANCEL);
        assertThat(AdminAction.forJob(JobState.COMPLETED)).isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> AdminAction.of(Target.SCHEDULE, "cancel"))
            .withMessage("Unknown action 'cancel': use pause, resume, trigger, reschedule, remove");
        assertThatIllegalArgumentException().isThrownBy(() -> AdminAction.of(Target.QUEUE, "explode"))
            .withMessage("Unknown action 'explode': use pause, resume, cancel, retry, purge, wake");
    }
}
