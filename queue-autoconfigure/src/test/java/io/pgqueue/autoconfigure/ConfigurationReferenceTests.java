package io.pgqueue.autoconfigure;

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
 * The README's configuration reference cannot drift from the properties: every {@code pgqueue.*} property in
 * the generated configuration metadata is documented there, and every property there exists.
 */
class ConfigurationReferenceTests {

    private static final Path README = Path.of("..", "README.md");

    @Test
    void everyPropertyIsInTheReadmeAndEveryDocumentedPropertyExists() throws IOException {
        List<String> properties = new ArrayList<>();
        try (InputStream metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(metadata).as("generated configuration metadata").isNotNull();
            for (JsonNode property : JsonMapper.builder().build().readTree(metadata).get("properties")) {
                String name = property.get("name").asString();
                if (name.startsWith("pgqueue.")) {
                    properties.add(name);
                    assertThat(property.has("description")).as("description of " + name).isTrue();
                }
            }
        }
        String readme = Files.readString(README);

        assertThat(properties).hasSizeGreaterThan(40);
        assertThat(properties).allSatisfy((name) -> assertThat(readme).as("README documents " + name)
            .contains("`" + name));
        String configuration = readme.substring(readme.indexOf("## Configuration"));
        configuration = configuration.substring(0, configuration.indexOf("\n## ", 1));
        List<String> documented = configuration.lines()
            .filter((line) -> line.startsWith("| `pgqueue."))
            .map((line) -> line.substring(3, line.indexOf('`', 3)))
            .toList();
        assertThat(documented).isNotEmpty().allSatisfy((name) -> assertThat(properties)
            .as("README property " + name + " exists")
            .anyMatch((property) -> property.equals(name) || (name.startsWith(property + ".")
                    && (property.equals("pgqueue.queues") || property.equals("pgqueue.schedules")))));
    }
}
