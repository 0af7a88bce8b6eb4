package io.pgqueue.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README's dashboard section documents every {@code pgqueue.dashboard.*} property of the generated
 * configuration metadata, and nothing else under that prefix.
 */
class DashboardConfigurationReferenceTests {

    @Test
    void everyDashboardPropertyIsInTheReadme() throws IOException {
        List<String> properties = new ArrayList<>();
        try (InputStream metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(metadata).as("generated configuration metadata").isNotNull();
            for (JsonNode property : JsonMapper.builder().build().readTree(metadata).get("properties")) {
                String name = property.get("name").asString();
                if (name.startsWith("pgqueue.dashboard.")) {
                    properties.add(name);
                    assertThat(property.has("description")).as("description of " + name).isTrue();
                }
            }
        }
        String readme = Files.readString(Path.of("..", "README.md"));
        List<String> documented = readme.lines()
            .filter((line) -> line.startsWith("| `pgqueue.dashboard."))
            .map((line) -> line.substring(3, line.indexOf('`', 3)))
            .toList();
        assertThat(documented).containsExactlyInAnyOrderElementsOf(properties).hasSize(6);
    }
}
