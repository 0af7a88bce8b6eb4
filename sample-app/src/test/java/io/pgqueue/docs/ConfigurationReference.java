package io.pgqueue.docs;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.pgqueue.autoconfigure.PgQueueProperties;
import org.springframework.beans.BeanUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Renders docs/configuration.md from the configuration metadata the build generates (every
 * {@code spring-configuration-metadata.json} on the classpath: the auto-configuration's and the dashboard's) and,
 * for the keys of {@code pgqueue.schedules.<name>.*}, from the javadoc of {@link PgQueueProperties.Schedule}'s
 * fields, which is what the metadata would say of them.
 */
final class ConfigurationReference {

    private static final Set<String> MAP_PROPERTIES = Set.of("pgqueue.queues", "pgqueue.schedules", "pgqueue.databases");

    private final Map<String, JsonNode> properties;

    private final Map<String, List<String>> hints;

    /** The keys of {@code pgqueue.queues.<queue>.*}, with the listener property each overrides. */
    private final Map<String, JsonNode> perQueueKeys;

    /** The keys of {@code pgqueue.schedules.<name>.*}, from the javadoc of their fields. */
    private final Map<String, Field> scheduleKeys;

    /** The keys of {@code pgqueue.queues.<queue>.fairness.*}, from the javadoc of their fields. */
    private final Map<String, Field> fairnessKeys;

    /** The keys of {@code pgqueue.databases.<name>.*} (its replica's under {@code replica.}), from their fields. */
    private final Map<String, Field> databaseKeys;

    private ConfigurationReference(Map<String, JsonNode> properties, Map<String, List<String>> hints) {
        this.properties = properties;
        this.hints = hints;
        this.perQueueKeys = perQueueKeys(properties);
        this.scheduleKeys = fieldKeys("Schedule", PgQueueProperties.Schedule.class);
        this.fairnessKeys = fieldKeys("Fairness", PgQueueProperties.Fairness.class);
        this.databaseKeys = new LinkedHashMap<>(fieldKeys(PgQueueProperties.Database.class, "Database", "PooledConnection"));
        fieldKeys(PgQueueProperties.Replica.class, "Replica", "PooledConnection")
            .forEach((key, field) -> databaseKeys.put("replica." + key, field));
    }

    /** pgqueue's properties from every metadata file on the classpath. */
    static ConfigurationReference fromClasspath() {
        Map<String, JsonNode> properties = new TreeMap<>();
        Map<String, List<String>> hints = new TreeMap<>();
        JsonMapper json = JsonMapper.builder().build();
        try {
            for (URL url : Collections.list(ConfigurationReference.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
                try (InputStream in = url.openStream()) {
                    JsonNode metadata = json.readTree(in);
                    for (JsonNode property : metadata.path("properties")) {
                        String name = property.get("name").asString();
                        if (isPgQueue(name)) {
                            properties.put(name, property);
                        }
                    }
                    for (JsonNode hint : metadata.path("hints")) {
                        String name = hint.get("name").asString();
                        if (isPgQueue(name)) {
                            List<String> values = new ArrayList<>();
                            hint.path("values").forEach((value) -> values.add(value.get("value").asString()));
                            hints.put(name, values);
                        }
                    }
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return new ConfigurationReference(properties, hints);
    }

    private static boolean isPgQueue(String name) {
        return name.startsWith("pgqueue.") || name.startsWith("management.endpoint.pgqueue.");
    }

    Set<String> names() {
        return properties.keySet();
    }

    boolean hasDescription(String name) {
        return !properties.get(name).path("description").asString("").isBlank();
    }

    /** Whether a key written in YAML or properties, e.g. {@code pgqueue.queues.bills.rate}, is a property. */
    boolean knows(String key) {
        // a map key holding dots, bracketed (and quoted in YAML): one part of the name
        key = key.replaceAll("\"?\\[[^\\]]*\\]\"?", "bracketed");
        if (properties.containsKey(key)) {
            return true;
        }
        String[] parts = key.split("\\.", 4);
        if (parts.length == 4 && parts[0].equals("pgqueue") && parts[1].equals("queues")) {
            if (parts[3].startsWith("fairness.")) {
                return fairnessKeys.containsKey(parts[3].substring("fairness.".length()).split("\\.")[0]);
            }
            return perQueueKeys.containsKey(parts[3]);
        }
        if (parts.length == 4 && parts[0].equals("pgqueue") && parts[1].equals("schedules")) {
            return scheduleKeys.containsKey(parts[3]);
        }
        if (parts.length == 4 && parts[0].equals("pgqueue") && parts[1].equals("databases")) {
            return databaseKeys.containsKey(parts[3]);
        }
        return false;
    }

    String render() {
        StringBuilder page = new StringBuilder();
        page.append("""
                # Configuration reference

                <!-- Generated from the configuration metadata by ConfigurationReferenceTests (sample-app); do not edit.
                     Regenerate: ./mvnw -pl sample-app test -Dtest=ConfigurationReferenceTests -Dpgqueue.docs.write=true -->

                You want to know what a property does, its type and its default. Every property here comes from the
                configuration metadata the build generates from the code (`spring-configuration-metadata.json`, so
                your IDE completes and documents them too); a test fails the build when this page and the metadata
                disagree.

                A listener's setting is taken from, in order: its `@QueueListener` attribute, then
                `pgqueue.queues.<queue>.*`, then `pgqueue.listener.*`, then the default below. An invalid value fails
                startup with a message naming the property, e.g. `Property pgqueue.queues.payments.rate with value
                'lots' is invalid: 'lots' is not a rate: use <permits>/<window>, e.g. 100/1s, ...`; an invalid
                listener method or attribute names the method. A key under `pgqueue` that no setting reads (a typo
                such as `pgqueue.listner.concurrency`) fails startup naming it, where it was set and the closest
                property (`did you mean 'pgqueue.listener.concurrency'?`); `pgqueue.fail-on-unknown-properties=false`
                turns that into a warning. Environment variables and JVM system properties are not checked (other
                tools use names of that prefix). Every bean pgqueue defines backs off when you define
                your own (`@ConditionalOnMissingBean`), and pgqueue never registers beans of the types Boot's own
                auto-configuration watches (`Flyway`, `JdbcTemplate`, `JdbcClient`, `TaskScheduler`,
                `PlatformTransactionManager`, `JsonMapper`).

                """);
        section(page, "Core", "pgqueue.*", (name) -> name.startsWith("pgqueue.") && !name.startsWith("pgqueue.dashboard.")
                && !MAP_PROPERTIES.contains(name));
        perQueue(page);
        fairness(page);
        schedules(page);
        databases(page);
        section(page, "Dashboard", "pgqueue.dashboard.* (module `pgqueue-spring-boot-dashboard`)",
                (name) -> name.startsWith("pgqueue.dashboard."));
        section(page, "Actuator endpoint", "management.endpoint.pgqueue.*",
                (name) -> name.startsWith("management.endpoint.pgqueue."));
        return page.toString();
    }

    private void section(StringBuilder page, String title, String prefix, Predicate<String> member) {
        page.append("## ").append(title).append("\n\n`").append(prefix.replaceFirst(" .*", ""))
            .append('`').append(prefix.contains(" ") ? prefix.substring(prefix.indexOf(' ')) : "").append("\n\n");
        page.append("| property | type | default | description |\n|---|---|---|---|\n");
        properties.forEach((name, property) -> {
            if (member.test(name)) {
                page.append(row("`" + name + "`", property));
            }
        });
        page.append('\n');
    }

    private void perQueue(StringBuilder page) {
        page.append("""
                ## Per queue

                `pgqueue.queues.<queue>.*` sets one queue's listeners; each key overrides the `pgqueue.listener.*`
                property of the same name for that queue (its default is that property's value).

                | key | type | description |
                |---|---|---|
                """);
        perQueueKeys.forEach((key, property) -> page.append("| `pgqueue.queues.<queue>.").append(key).append("` | ")
            .append(type(property)).append(" | ").append(description(property)).append(" |\n"));
        page.append('\n');
    }

    private void fairness(StringBuilder page) {
        page.append("""
                ## Fairness per queue

                `pgqueue.queues.<queue>.fairness.*` makes a queue fair: its listeners share their workers among the
                jobs' fairness keys by weight ([Fairness](fairness.md)).

                | key | type | default | description |
                |---|---|---|---|
                """);
        fairnessKeys.forEach((key, field) -> page.append("| `pgqueue.queues.<queue>.fairness.").append(key)
            .append(field.type().contains("Map") ? ".<key>" : "").append("` | ").append(field.type()).append(" | ")
            .append(field.defaultValue()).append(" | ").append(field.description()).append(" |\n"));
        page.append('\n');
    }

    private void schedules(StringBuilder page) {
        page.append("""
                ## Recurring jobs

                `pgqueue.schedules.<name>.*` declares one recurring job: each tick enqueues one job into its queue,
                once across the cluster.

                | key | type | default | description |
                |---|---|---|---|
                """);
        scheduleKeys.forEach((key, field) -> page.append("| `pgqueue.schedules.<name>.").append(key).append("` | ")
            .append(field.type()).append(" | ").append(field.defaultValue()).append(" | ").append(field.description())
            .append(" |\n"));
        page.append('\n');
    }

    private void databases(StringBuilder page) {
        page.append("""
                ## Several databases

                `pgqueue.databases.<name>.*` puts queues in a further PostgreSQL database ([Several
                databases](databases.md)); `pgqueue.databases.<name>.replica.*` gives it a read replica for listings.

                | key | type | default | description |
                |---|---|---|---|
                """);
        databaseKeys.forEach((key, field) -> page.append("| `pgqueue.databases.<name>.").append(key).append("` | ")
            .append(field.type()).append(" | ").append(field.defaultValue()).append(" | ").append(field.description())
            .append(" |\n"));
        page.append('\n');
    }

    /** The {@code pgqueue.listener.*} properties that a queue's settings override, by their key. */
    private static Map<String, JsonNode> perQueueKeys(Map<String, JsonNode> properties) {
        Set<String> settings = new TreeSet<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(PgQueueProperties.QueueSettings.class)) {
            if (descriptor.getWriteMethod() != null || descriptor.getName().equals("backoff")) {
                settings.add(kebab(descriptor.getName()));
            }
        }
        Map<String, JsonNode> keys = new LinkedHashMap<>();
        properties.forEach((name, property) -> {
            if (name.startsWith("pgqueue.listener.")) {
                String key = name.substring("pgqueue.listener.".length());
                if (settings.contains(key.split("\\.")[0])) {
                    keys.put(key, property);
                }
            }
        });
        return keys;
    }

    private record Field(String type, String defaultValue, String description) {
    }

    private static final Pattern FIELD = Pattern.compile(
            "/\\*\\*((?:(?!\\*/).)*?)\\*/\\s*private (?:@Nullable )?([\\w<>, ]+?) (\\w+)(?: = ([^;]+))?;", Pattern.DOTALL);

    /** A field initialised as {@code Duration.ofSeconds(5)}: written as Boot reads it, {@code 5s}. */
    private static final Pattern DURATION = Pattern.compile("Duration\\.of(Millis|Seconds|Minutes|Hours|Days)\\((\\d+)\\)");

    private static final Map<String, String> DURATION_UNITS = Map.of("Millis", "ms", "Seconds", "s", "Minutes", "m",
            "Hours", "h", "Days", "d");

    private static Map<String, Field> fieldKeys(String className, Class<?> type) {
        return fieldKeys(type, className);
    }

    /**
     * The keys of a nested properties class (a recurring job, a queue's fairness, a database), from the javadoc
     * of its fields, declared in the named classes (the class and those it extends).
     */
    private static Map<String, Field> fieldKeys(Class<?> type, String... classNames) {
        String source = Repository.read(java.nio.file.Path.of("queue-autoconfigure", "src", "main", "java", "io",
                "pgqueue", "autoconfigure", "PgQueueProperties.java"));
        StringBuilder bodies = new StringBuilder();
        for (String className : classNames) {
            Matcher declaration = Pattern.compile("public (?:abstract )?static class " + className + "\\b[^{]*\\{")
                .matcher(source);
            if (!declaration.find()) {
                throw new IllegalStateException("No class " + className + " in PgQueueProperties");
            }
            bodies.append(source, declaration.start(), source.indexOf("\n    }\n", declaration.start()));
        }
        String body = bodies.toString();
        Map<String, Field> keys = new LinkedHashMap<>();
        Matcher matcher = FIELD.matcher(body);
        while (matcher.find()) {
            String description = matcher.group(1).lines().map((line) -> line.replaceFirst("^\\s*\\*\\s?", "").strip())
                .collect(Collectors.joining(" ")).strip();
            String initial = (matcher.group(4) != null) ? matcher.group(4).strip() : "";
            Matcher duration = DURATION.matcher(initial);
            String defaultValue = (initial.isEmpty() || initial.startsWith("new ")) ? ""
                    : duration.matches() ? "`" + duration.group(2) + DURATION_UNITS.get(duration.group(1)) + "`"
                    : "`" + (initial.startsWith("\"") ? initial.substring(1, initial.length() - 1)
                            : initial.matches("[0-9.]+") ? initial
                            : enumValue(initial.substring(initial.lastIndexOf('.') + 1))) + "`";
            if (matcher.group(2).startsWith("final ")) {
                continue; // a nested group (a database's replica): its keys are listed on their own
            }
            Class<?> fieldType = BeanUtils.getPropertyDescriptor(type, matcher.group(3)).getPropertyType();
            keys.put(kebab(matcher.group(3)), new Field(type(fieldType.getName()), defaultValue, escape(description)));
        }
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getWriteMethod() != null && !keys.containsKey(kebab(descriptor.getName()))) {
                throw new IllegalStateException(type.getSimpleName() + " property " + descriptor.getName() + " has no documented field");
            }
        }
        return keys;
    }

    private String row(String name, JsonNode property) {
        return "| " + name + " | " + type(property) + " | " + defaultValue(property) + " | " + description(property)
                + " |\n";
    }

    private String type(JsonNode property) {
        String name = property.get("name").asString();
        List<String> values = hints.get(name);
        if (values != null && !values.isEmpty()) {
            return values.stream().map((value) -> "`" + value + "`").collect(Collectors.joining(", "));
        }
        return type(property.path("type").asString(""));
    }

    /** A Java type as a reader writes it: an enum as its values, other types by their simple names. */
    private static String type(String javaType) {
        try {
            Class<?> type = Class.forName(javaType, false, ConfigurationReference.class.getClassLoader());
            if (type.isEnum()) {
                return Arrays.stream(type.getEnumConstants())
                    .map((constant) -> "`" + enumValue(((Enum<?>) constant).name()) + "`")
                    .collect(Collectors.joining(", "));
            }
        }
        catch (ClassNotFoundException ex) {
            // a generic type or a primitive: named below
        }
        String simple = javaType.replaceAll("(?:[a-z]\\w*\\.)+([A-Z]\\w*)\\$", "$1.").replaceAll("(?:[a-z]\\w*\\.)+", "");
        return "`" + simple.replace("|", "\\|") + "`";
    }

    private static String enumValue(String constant) {
        return constant.toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static String defaultValue(JsonNode property) {
        JsonNode value = property.get("defaultValue");
        if (value == null || value.isNull()) {
            return "";
        }
        if (value.isArray()) {
            List<String> items = new ArrayList<>();
            value.forEach((item) -> items.add(item.asString()));
            return items.isEmpty() ? "" : "`" + String.join(",", items) + "`";
        }
        return "`" + value.asString() + "`";
    }

    private static String description(JsonNode property) {
        return escape(property.path("description").asString("").replaceAll("\\s+", " ").strip());
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
