package io.pgqueue.docs;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md is what the configuration metadata says: every {@code pgqueue.*} and
 * {@code management.endpoint.pgqueue.*} property with its type, default and description. With
 * {@code -Dpgqueue.docs.write=true} the page is rewritten instead.
 */
class ConfigurationReferenceTests {

    private static final Path PAGE = Path.of("docs", "configuration.md");

    @Test
    void theCheckedInReferenceIsTheGeneratedOne() {
        ConfigurationReference reference = ConfigurationReference.fromClasspath();
        String generated = reference.render();
        if (Repository.WRITE) {
            Repository.write(PAGE, generated);
        }
        assertThat(Repository.read(PAGE)).as("docs/configuration.md is stale; regenerate it with "
                + "./mvnw -pl sample-app test -Dtest=ConfigurationReferenceTests -Dpgqueue.docs.write=true")
            .isEqualTo(generated);
    }

    @Test
    void everyPropertyIsDescribedAndBothModulesAreIncluded() {
        ConfigurationReference reference = ConfigurationReference.fromClasspath();
        assertThat(reference.names()).hasSizeGreaterThan(55)
            .contains("pgqueue.listener.concurrency", "pgqueue.dashboard.read-only",
                    "management.endpoint.pgqueue.show-values");
        assertThat(reference.names()).allSatisfy(
                (name) -> assertThat(reference.hasDescription(name)).as("description of " + name).isTrue());
        assertThat(reference.knows("pgqueue.queues.bills.rate")).isTrue();
        assertThat(reference.knows("pgqueue.queues.bills.backoff.initial")).isTrue();
        assertThat(reference.knows("pgqueue.schedules.nightly.cron")).isTrue();
        assertThat(reference.knows("pgqueue.queues.bills.lease-duration")).as("a node-wide setting").isFalse();
        assertThat(reference.knows("pgqueue.listener.concurency")).isFalse();
    }
}
