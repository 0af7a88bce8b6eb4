package io.pgqueue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package table of docs/architecture.md is the import rule: every {@code io.pgqueue} import of the main
 * sources (this module, the dashboard, the test artifact) must be one its package's row allows, every package
 * must have a row, and no public package names an internal type.
 */
class ArchitectureTests {

    private static final Path ROOT = Path.of("..");

    private static final List<String> MODULES = List.of("queue-autoconfigure", "queue-dashboard", "queue-test");

    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(io\\.pgqueue[\\w.]*?)\\.[A-Z]",
            Pattern.MULTILINE);

    /** A fully qualified type in code (comments left out): an import by another name, held to the same rule. */
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])(io\\.pgqueue(?:\\.[a-z]\\w*)*)\\.[A-Z]");

    /** Text blocks, string literals and comments: what is no reference to a type. */
    private static final Pattern NOT_CODE = Pattern.compile("\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|/\\*.*?\\*/|//[^\\n]*",
            Pattern.DOTALL);

    private static final Pattern ROW = Pattern.compile("^\\| `(io\\.pgqueue[\\w.]*)` \\|[^|]*\\| ([^|]*) \\|$");

    private static final Pattern NAME = Pattern.compile("`(io\\.pgqueue[\\w.]*(?:\\.\\*)?)`");

    @Test
    void everyImportIsOneThePackageTableAllows() {
        Map<String, Set<String>> rules = rules(read(ROOT.resolve("docs/architecture.md")));
        Map<String, Set<String>> imports = imports();
        List<String> violations = violations(rules, imports);
        assertThat(violations).as("imports docs/architecture.md does not allow").isEmpty();
        assertThat(imports.keySet()).as("packages in the table").allSatisfy(
                (pkg) -> assertThat(rules).as("docs/architecture.md has a row for " + pkg).containsKey(pkg));
        assertThat(rules.keySet()).as("rows of packages that exist").allSatisfy(
                (pkg) -> assertThat(imports).as("package " + pkg + " exists").containsKey(pkg));
    }

    @Test
    void publicPackagesNeverNameAnInternalType() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (Path source : sources()) {
            String text = read(source);
            String pkg = packageOf(text);
            if (!pkg.startsWith("io.pgqueue.internal") && !pkg.startsWith("io.pgqueue.autoconfigure")
                    && text.contains("io.pgqueue.internal")) {
                offenders.add(ROOT.relativize(source).toString());
            }
        }
        assertThat(offenders).isEmpty();
    }

    @Test
    void anImportBackUpIsFound() {
        Map<String, Set<String>> rules = rules("""
                | `io.pgqueue.model` | records | — |
                | `io.pgqueue.admin` | admin | `io.pgqueue.model` |
                | `io.pgqueue.internal.a` | a | `io.pgqueue.listener.*` |
                """);
        assertThat(violations(rules, Map.of("io.pgqueue.model", Set.of("io.pgqueue.admin"))))
            .containsExactly("io.pgqueue.model imports io.pgqueue.admin");
        assertThat(violations(rules, Map.of("io.pgqueue.admin", Set.of("io.pgqueue.model")))).isEmpty();
        assertThat(violations(rules, Map.of("io.pgqueue.internal.a", Set.of("io.pgqueue.listener.error")))).isEmpty();
        assertThat(violations(rules, Map.of("io.pgqueue.internal.a", Set.of("io.pgqueue.listener")))).isEmpty();
        assertThat(violations(rules, Map.of("io.pgqueue.internal.a", Set.of("io.pgqueue.listenerx")))).hasSize(1);
    }

    private static List<String> violations(Map<String, Set<String>> rules, Map<String, Set<String>> imports) {
        List<String> violations = new ArrayList<>();
        imports.forEach((pkg, imported) -> {
            Set<String> allowed = rules.getOrDefault(pkg, Set.of());
            for (String target : imported) {
                boolean ok = target.equals(pkg) || allowed.stream().anyMatch((rule) -> rule.equals(target)
                        || rule.endsWith(".*") && (target + ".").startsWith(rule.substring(0, rule.length() - 1)));
                if (!ok) {
                    violations.add(pkg + " imports " + target);
                }
            }
        });
        return violations;
    }

    /** Each package's allowed imports, from the rows of the table. */
    private static Map<String, Set<String>> rules(String markdown) {
        Map<String, Set<String>> rules = new LinkedHashMap<>();
        for (String line : markdown.lines().toList()) {
            Matcher row = ROW.matcher(line.strip());
            if (row.matches()) {
                Set<String> allowed = new TreeSet<>();
                Matcher name = NAME.matcher(row.group(2));
                while (name.find()) {
                    allowed.add(name.group(1));
                }
                rules.put(row.group(1), allowed);
            }
        }
        return rules;
    }

    /** Each package's imports of other io.pgqueue packages. */
    private static Map<String, Set<String>> imports() {
        Map<String, Set<String>> imports = new TreeMap<>();
        for (Path source : sources()) {
            String text = read(source);
            String pkg = packageOf(text);
            Set<String> targets = imports.computeIfAbsent(pkg, (p) -> new TreeSet<>());
            Matcher imported = IMPORT.matcher(text);
            while (imported.find()) {
                if (!imported.group(1).equals(pkg)) {
                    targets.add(imported.group(1));
                }
            }
            String code = NOT_CODE.matcher(text.replaceAll("(?m)^(package|import) .*$", "")).replaceAll("");
            Matcher qualified = QUALIFIED.matcher(code);
            while (qualified.find()) {
                if (!qualified.group(1).equals(pkg)) {
                    targets.add(qualified.group(1));
                }
            }
        }
        return imports;
    }

    private static List<Path> sources() {
        List<Path> sources = new ArrayList<>();
        for (String module : MODULES) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
                files.filter((file) -> file.toString().endsWith(".java")).forEach(sources::add);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        assertThat(sources).hasSizeGreaterThan(150);
        return sources;
    }

    private static String packageOf(String source) {
        Matcher pkg = PACKAGE.matcher(source);
        assertThat(pkg.find()).isTrue();
        return pkg.group(1);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
