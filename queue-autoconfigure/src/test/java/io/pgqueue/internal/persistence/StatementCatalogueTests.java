package io.pgqueue.internal.persistence;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.model.WorkflowState;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The statement catalogue (src/main/resources/io/pgqueue/sql): every statement pgqueue can send, rendered by
 * the code that composes it, one file per family, each statement a named block. The catalogue is what a
 * reviewer reads and diffs; this test fails when the code would send a statement whose text differs from its
 * block. Regenerate with {@code -Dpgqueue.sql.write=true} after a deliberate change, and read the diff.
 */
class StatementCatalogueTests {

    static final Path CATALOGUE = Path.of("src/main/resources/io/pgqueue/sql");

    private static final boolean WRITE = Boolean.getBoolean("pgqueue.sql.write");

    /**
     * A setting that changes statements: its property, the folder of the statements it changes, and what the
     * repositories are made with.
     */
    private record Setting(String property, String folder, boolean counters, boolean history, boolean durableClaims) {
    }

    private static final Setting DEFAULTS = new Setting("", "", true, false, false);

    /** Each setting away from its default, one at a time: the statements it changes are in a folder of its own. */
    private static final List<Setting> OTHER_SETTINGS = List.of(
            new Setting("pgqueue.history.enabled=true", "history-enabled", true, true, false),
            new Setting("pgqueue.counters.enabled=false", "counters-disabled", false, false, false),
            new Setting("pgqueue.listener.durable-claims=true", "durable-claims", true, false, true));

    /** The sizes a claim is rendered at in the catalogue (any other size has the same text with its number). */
    private static final int CATALOGUE_CLAIM_SIZE = 10;

    @Test
    void theCatalogueHoldsEveryStatementAsTheCodeComposesIt() throws IOException {
        Map<String, String> rendered = render();
        if (WRITE) {
            write(rendered);
            return;
        }
        List<String> differences = new ArrayList<>();
        for (Map.Entry<String, String> family : rendered.entrySet()) {
            Path file = CATALOGUE.resolve(family.getKey() + ".sql");
            if (!Files.exists(file)) {
                differences.add(file + " is missing");
                continue;
            }
            Map<String, String> written = blocks(Files.readString(file));
            Map<String, String> composed = blocks(family.getValue());
            composed.forEach((name, text) -> {
                if (!text.equals(written.get(name))) {
                    differences.add((written.containsKey(name) ? "changed: " : "not in the catalogue: ") + name);
                }
            });
            written.keySet().stream().filter((name) -> !composed.containsKey(name))
                .forEach((name) -> differences.add("no longer composed: " + name));
        }
        for (Path file : catalogueFiles()) {
            String path = CATALOGUE.relativize(file).toString();
            if (!rendered.containsKey(path.substring(0, path.length() - ".sql".length()))) {
                differences.add(file + " holds no statement the code composes");
            }
        }
        if (!differences.isEmpty()) {
            fail("The statements the code composes differ from the catalogue in " + CATALOGUE + ":\n  "
                    + String.join("\n  ", differences) + "\nRegenerate it (./mvnw -pl queue-autoconfigure test "
                    + "-Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true) and review the diff.");
        }
    }

    @Test
    void everyStatementStartsWithItsNameAndNoTwoStatementsShareOne() {
        Map<String, String> byName = new LinkedHashMap<>();
        for (Sql sql : statements(DEFAULTS)) {
            assertThat(sql.name()).as("name of %s", sql.text()).isNotNull();
            assertThat(sql.jdbcSql()).startsWith("/* pgqueue:" + sql.name() + " */\n");
            String[] parts = sql.jdbcSql().split(";\n/\\* pgqueue:");
            for (int part = 1; part < parts.length; part++) {
                // each statement of a round trip is named, with its place
                assertThat(parts[part]).startsWith(sql.name() + " #" + (part + 1) + " */\n");
            }
            String earlier = byName.putIfAbsent(sql.name(), sql.text());
            assertThat(earlier).as("another statement named %s", sql.name()).isIn(null, sql.text());
        }
        assertThat(byName).hasSizeGreaterThan(150);
    }

    @Test
    void aClaimOfAnySizeIsTheCataloguedClaimWithItsSizeWrittenIn() {
        Repositories repositories = repositories(DEFAULTS);
        generateClaims(repositories, CATALOGUE_CLAIM_SIZE);
        Map<String, String> catalogued = textsByName(repositories);
        int[] sizes = { 1, 3, 64, 250, 1000 };
        for (int size : sizes) {
            generateClaims(repositories, size);
        }
        Map<String, String> all = textsByName(repositories);
        for (String name : List.of("claim.lease", "claim.lease-after", "claim.and-delete",
                "claim.and-delete-after")) {
            String parameterized = catalogued.get(name);
            String sized = catalogued.get(name + ":" + CATALOGUE_CLAIM_SIZE);
            assertThat(sized).as(name).isEqualTo(parameterized.replace("/* pgqueue:" + name + " ",
                    "/* pgqueue:" + name + ":" + CATALOGUE_CLAIM_SIZE + " ").replaceAll(":limit\\b",
                    String.valueOf(CATALOGUE_CLAIM_SIZE)));
            for (int size : sizes) {
                assertThat(all.get(name + ":" + size)).as(name + ":" + size)
                    .isEqualTo(sized.replace(name + ":" + CATALOGUE_CLAIM_SIZE + " ", name + ":" + size + " ")
                        .replaceAll("LIMIT " + CATALOGUE_CLAIM_SIZE + "\\b", "LIMIT " + size));
            }
        }
    }

    /**
     * The catalogue's files by path: a file per family with the statements of the default settings, and, in a
     * folder per other setting, a file per family with the statements that setting changes.
     */
    static Map<String, String> render() {
        Map<String, Sql> defaults = byName(statements(DEFAULTS));
        Map<String, String> files = new TreeMap<>();
        files.putAll(files(defaults.values(), DEFAULTS));
        for (Setting setting : OTHER_SETTINGS) {
            List<Sql> changed = new ArrayList<>();
            byName(statements(setting)).forEach((name, sql) -> {
                Sql usual = defaults.get(name);
                assertThat(usual).as("%s is composed with %s only", name, setting.property()).isNotNull();
                if (!usual.text().equals(sql.text())) {
                    changed.add(sql);
                }
            });
            files.putAll(files(changed, setting));
        }
        return files;
    }

    private static Map<String, String> files(java.util.Collection<Sql> statements, Setting setting) {
        Map<String, List<String>> blocks = new TreeMap<>();
        for (Sql sql : statements) {
            String family = sql.name().substring(0, sql.name().indexOf('.'));
            blocks.computeIfAbsent(family, (f) -> new ArrayList<>()).add(block(sql.name(), sql.text()));
        }
        Map<String, String> files = new TreeMap<>();
        blocks.forEach((family, texts) -> files.put(
                (setting.folder().isEmpty() ? "" : setting.folder() + "/") + family,
                header(family, setting) + String.join("\n", texts)));
        return files;
    }

    private static String header(String family, Setting setting) {
        String settings = setting.property().isEmpty()
                ? """
                  -- Rendered with the schema "pgqueue" and the default settings; the statements that another setting
                  -- changes are in that setting's folder. A claim is rendered with its limit as a parameter and at
                  -- a size of 10: a listener's claims of other sizes have their size written in the same way
                  -- (name:size). Statements whose text carries values computed at run time (DDL takes no
                  -- parameters) are shown with example values."""
                : """
                  -- Rendered with the schema "pgqueue" and %s, every other setting its default: only the
                  -- statements this setting changes, under the names of the statements they replace.""".formatted(
                        setting.property());
        return """
                -- pgqueue's statements: %s
                --
                -- Rendered from the code that composes them, for reading and review: do not edit. A change of the
                -- code that changes a statement fails StatementCatalogueTests until this file is regenerated
                -- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
                -- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
                -- as server logs, pg_stat_activity and pg_stat_statements show it.
                --
                %s

                """.formatted(family, settings.strip());
    }

    private static String block(String name, String text) {
        return "-- name: " + name + "\n" + text.strip() + ";\n";
    }

    /** The blocks of a catalogue file by name. */
    private static Map<String, String> blocks(String file) {
        Map<String, String> blocks = new LinkedHashMap<>();
        String[] parts = file.split("(?m)^-- name: ");
        for (int i = 1; i < parts.length; i++) {
            int end = parts[i].indexOf('\n');
            // the blank line between blocks is not part of the statement
            blocks.put(parts[i].substring(0, end), parts[i].substring(end + 1).strip());
        }
        return blocks;
    }

    private static void write(Map<String, String> rendered) throws IOException {
        for (Path file : catalogueFiles()) {
            Files.delete(file);
        }
        for (Map.Entry<String, String> family : rendered.entrySet()) {
            Path file = CATALOGUE.resolve(family.getKey() + ".sql");
            Files.createDirectories(file.getParent());
            Files.writeString(file, family.getValue(), StandardCharsets.UTF_8);
        }
    }

    private static List<Path> catalogueFiles() throws IOException {
        if (!Files.exists(CATALOGUE)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(CATALOGUE)) {
            return files.filter((file) -> file.toString().endsWith(".sql")).toList();
        }
    }

    private static Map<String, Sql> byName(List<Sql> statements) {
        Map<String, Sql> byName = new LinkedHashMap<>();
        for (Sql sql : statements) {
            byName.putIfAbsent(sql.name(), sql);
        }
        return byName;
    }

    private static Map<String, String> textsByName(Repositories repositories) {
        Map<String, String> texts = new LinkedHashMap<>();
        repositories.jobTableStatements().forEach((sql) -> texts.putIfAbsent(sql.name(), sql.text()));
        return texts;
    }

    private static Repositories repositories(Setting setting) {
        return new Repositories(new SimpleDriverDataSource(), new Schema("pgqueue"), "pgqueue_schema_history",
                setting.counters(), setting.history(), Duration.ZERO, null, setting.durableClaims());
    }

    /** Every statement of a setting: those made at startup, those made on first use, and the examples of DDL. */
    static List<Sql> statements(Setting setting) {
        Repositories repositories = repositories(setting);
        generateClaims(repositories, CATALOGUE_CLAIM_SIZE);
        generatePages(repositories);
        List<Sql> statements = new ArrayList<>(repositories.jobTableStatements());
        statements.addAll(MigrationSession.statements());
        statements.add(JdbcNotificationRepository.NOTIFY);
        Schema schema = repositories.schema();
        Instant day = Instant.parse("2026-11-24T00:00:00Z");
        statements.add(schema.ddl("history.create-partition",
                JdbcHistoryRepository.createStatement("job_history_20261124", day, day.plus(Duration.ofDays(1)))));
        statements.add(schema.ddl("history.drop-partition", JdbcHistoryRepository.dropStatement("job_history_20261124")));
        statements.add(schema.ddl("schema.id-block-bounds",
                JdbcSchemaRepository.idBlockBoundsStatement("job", 1000000000001L, 2000000000000L)));
        statements.add(schema.ddl("schema.id-block-restart",
                JdbcSchemaRepository.idBlockRestartStatement("job", 1000000000001L, 2000000000000L, 1000000000001L)));
        return statements;
    }

    /** Makes the claims of a size (the DataSource reaches no database: each statement is made before it fails). */
    private static void generateClaims(Repositories repositories, int size) {
        ClaimRequest request = new ClaimRequest("q", size, 3, false, UUID.randomUUID(), 30_000);
        ClaimRequest after = request.after(new ClaimCursor(0, Instant.EPOCH, 1));
        for (ClaimRequest claim : List.of(request, after)) {
            attempt(repositories, (r) -> r.engine().claimLeased(claim));
            attempt(repositories, (r) -> r.engine().claimAndDelete(claim));
            attempt(repositories, (r) -> r.engine().claimThrottled(claim, 4, null));
        }
        attempt(repositories, (r) -> r.engine().completeThenClaimCapped(request.node(),
                new Completion(1, 1, null, null, null, Cascades.NONE), request, 4));
    }

    /** Makes the page statements: every state alone, all states, each filter, with and without content. */
    private static void generatePages(Repositories repositories) {
        List<JobQuery> queries = new ArrayList<>();
        for (JobState state : JobState.all()) {
            queries.add(JobQuery.queue("q").states(state).build());
        }
        queries.add(JobQuery.queue("q").build());
        queries.add(JobQuery.queue("q").withoutContent().build());
        queries.add(JobQuery.queue("q").states(JobState.READY).groupKey("g").build());
        queries.add(JobQuery.queue("q").states(JobState.READY).dedupKey("d").build());
        queries.add(JobQuery.queue("q").states(JobState.READY).header("h", "v").build());
        queries.add(JobQuery.queue("q").states(JobState.COMPLETED).enqueuedAfter(Instant.EPOCH).build());
        queries.add(JobQuery.queue("q").states(JobState.READY).enqueuedBefore(Instant.EPOCH).build());
        queries.add(JobQuery.queue("q").groupKey("g").build());
        for (JobQuery query : queries) {
            attempt(repositories, (r) -> r.admin().jobs(query));
        }
        for (BatchQuery query : List.of(BatchQuery.newest(10), new BatchQuery("n", BatchState.OPEN, null, 10))) {
            attempt(repositories, (r) -> r.batches().batches(query));
        }
        for (WorkflowQuery query : List.of(WorkflowQuery.newest(10),
                new WorkflowQuery("n", WorkflowState.RUNNING, null, 10))) {
            attempt(repositories, (r) -> r.workflows().workflows(query));
        }
    }

    private static void attempt(Repositories repositories, Consumer<Repositories> call) {
        try {
            call.accept(repositories);
        }
        catch (RuntimeException expected) {
            // no database behind this DataSource: the statement was made before the call failed
        }
    }
}
