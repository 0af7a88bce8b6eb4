package io.pgqueue.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgqueue.docs.Markdown.CodeBlock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Every Java snippet of README.md and docs/ is a tagged region of a source compiled by this module (under
 * {@code io.pgqueue.docs.snippets}), named by the comment above it, {@code <!-- snippet: path#tag -->}: a renamed
 * method breaks the build, not the guides. Every {@code pgqueue.*} key in a YAML or properties snippet is a
 * property of the configuration reference. With {@code -Dpgqueue.docs.write=true} the Java snippets are rewritten
 * from their sources instead.
 */
class DocsSnippetsTests {

    private static final Path SNIPPETS = Path.of("sample-app", "src", "test", "java", "io", "pgqueue", "docs",
            "snippets");

    private static final Pattern MARKER = Pattern.compile("<!-- snippet: ([\\w/.]+)#([\\w-]+) -->");

    private static final Pattern EXAMPLE_MARKER = Pattern.compile("<!-- example: (examples/[\\w/.-]+)#([\\w-]+) -->");

    @Test
    void everyJavaSnippetIsACompiledSource() {
        Map<String, String> comments = Map.of("java", "//");
        int snippets = checkSnippets(comments, MARKER, (path) -> SNIPPETS.resolve(path), "<!-- snippet: path#tag -->");
        assertThat(snippets).as("java snippets found").isGreaterThanOrEqualTo(10);
    }

    /**
     * Every Python and JavaScript snippet is a tagged region ({@code # tag::name[]}, {@code // tag::name[]}) of a
     * producer under {@code examples/}, which {@code OtherLanguageProducersTests} runs against a Java listener.
     */
    @Test
    void everyPythonAndJavaScriptSnippetIsAnExampleThatRuns() {
        Map<String, String> comments = Map.of("python", "#", "javascript", "//");
        int snippets = checkSnippets(comments, EXAMPLE_MARKER, Path::of, "<!-- example: examples/path#tag -->");
        assertThat(snippets).as("python and javascript snippets found").isGreaterThanOrEqualTo(2);
    }

    /**
     * Checks every code block of the given languages (language → line comment) against the tagged region its marker
     * names, rewriting the pages with {@code -Dpgqueue.docs.write=true}; returns how many blocks it checked.
     */
    private static int checkSnippets(Map<String, String> comments, Pattern markerPattern, Function<String, Path> source,
            String markerForm) {
        List<String> problems = new ArrayList<>();
        int snippets = 0;
        for (Path page : Repository.markdownFiles()) {
            String text = Repository.read(page);
            String rewritten = text;
            for (CodeBlock block : new Markdown(text).codeBlocks()) {
                String comment = comments.get(block.language());
                if (comment == null) {
                    continue;
                }
                snippets++;
                Matcher marker = markerPattern.matcher(block.marker());
                if (!marker.matches()) {
                    problems.add(page + ":" + block.line() + ": a " + block.language() + " block without " + markerForm
                            + " above it");
                    continue;
                }
                String region = region(Repository.read(source.apply(marker.group(1))), marker.group(2), comment);
                if (!region.equals(block.code())) {
                    problems.add(page + ":" + block.line() + ": differs from " + marker.group(1) + "#" + marker.group(2));
                    String fence = "\n```" + block.language() + "\n";
                    rewritten = rewritten.replace(block.marker() + fence + block.code() + "```",
                            block.marker() + fence + region + "```");
                }
            }
            if (Repository.WRITE && !rewritten.equals(text)) {
                Repository.write(page, rewritten);
            }
        }
        assertThat(problems).as("snippets (rewrite them with -Dpgqueue.docs.write=true)").isEmpty();
        return snippets;
    }

    @Test
    void everyConfigurationKeyInASnippetIsAProperty() {
        ConfigurationReference reference = ConfigurationReference.fromClasspath();
        List<String> unknown = new ArrayList<>();
        int keys = 0;
        for (Path page : Repository.markdownFiles()) {
            for (CodeBlock block : new Markdown(Repository.read(page)).codeBlocks()) {
                List<String> found = switch (block.language()) {
                    case "yaml", "yml" -> yamlKeys(block.code());
                    case "properties" -> block.code().lines().filter((line) -> line.contains("="))
                        .map((line) -> line.substring(0, line.indexOf('=')).strip()).toList();
                    default -> List.of();
                };
                for (String key : found) {
                    if (key.startsWith("pgqueue.") || key.startsWith("management.endpoint.pgqueue.")) {
                        keys++;
                        if (!reference.knows(key)) {
                            unknown.add(page + ":" + block.line() + ": " + key);
                        }
                    }
                }
            }
        }
        assertThat(unknown).as("configuration keys in snippets that are no property").isEmpty();
        assertThat(keys).as("configuration keys checked").isGreaterThan(5);
    }

    @Test
    void aRegionIsTheTaggedLinesDedented() {
        String source = "class A {\n    // tag::x[]\n    void a() {\n        b();\n    }\n    // end::x[]\n}\n";
        assertThat(region(source, "x")).isEqualTo("void a() {\n    b();\n}\n");
        String nested = "class A {\n    // tag::x[]\n    void a() {\n        // tag::y[]\n        b();\n        // end::y[]\n    }\n"
                + "    // end::x[]\n}\n";
        assertThat(region(nested, "x")).isEqualTo("void a() {\n    b();\n}\n");
        assertThatIllegalStateException().isThrownBy(() -> region(source, "y")).withMessageContaining("y");
        assertThat(yamlKeys("pgqueue:\n  listener:\n    concurrency: 8\n  queues:\n    bills:\n      rate: 5/1s\n"))
            .containsExactly("pgqueue.listener.concurrency", "pgqueue.queues.bills.rate");
        assertThat(yamlKeys("pgqueue:\n  schedules:\n    a: { queue: q, cron: \"0, 1\", payload: '{\"k\":1}' }\n"))
            .containsExactly("pgqueue.schedules.a.queue", "pgqueue.schedules.a.cron", "pgqueue.schedules.a.payload");
    }

    /** The lines between {@code // tag::name[]} and {@code // end::name[]}, without their common indentation. */
    static String region(String source, String tag) {
        return region(source, tag, "//");
    }

    /** As {@link #region(String, String)}, for a language whose line comments start with {@code comment}. */
    static String region(String source, String tag, String comment) {
        List<String> lines = source.lines().toList();
        int start = indexOf(lines, comment + " tag::" + tag + "[]", 0);
        int end = indexOf(lines, comment + " end::" + tag + "[]", start);
        if (start < 0 || end < 0) {
            throw new IllegalStateException("No region tagged " + tag);
        }
        // the markers of regions nested in this one are not part of what a reader copies
        List<String> region = lines.subList(start + 1, end).stream()
            .filter((line) -> !line.strip().matches(Pattern.quote(comment) + " (tag|end)::[\\w-]+\\[\\]")).toList();
        int indent = region.stream().filter((line) -> !line.isBlank())
            .mapToInt((line) -> line.length() - line.stripLeading().length()).min().orElse(0);
        StringBuilder text = new StringBuilder();
        region.forEach((line) -> text.append(line.isBlank() ? "" : line.substring(indent)).append('\n'));
        return text.toString();
    }

    private static int indexOf(List<String> lines, String marker, int from) {
        for (int i = Math.max(from, 0); i < lines.size(); i++) {
            if (lines.get(i).strip().equals(marker)) {
                return i;
            }
        }
        return -1;
    }

    /** The dotted keys of the leaves of a YAML block of nested maps. */
    static List<String> yamlKeys(String yaml) {
        List<String> keys = new ArrayList<>();
        String[] path = new String[32];
        int[] indents = new int[32];
        int depth = 0;
        for (String line : yaml.lines().toList()) {
            String content = line.replaceFirst("\\s+#.*$", "");
            if (content.isBlank() || content.strip().startsWith("#") || content.strip().startsWith("-")) {
                continue;
            }
            int indent = content.length() - content.stripLeading().length();
            while (depth > 0 && indents[depth - 1] >= indent) {
                depth--;
            }
            String key = content.strip().substring(0, content.strip().indexOf(':'));
            String value = content.strip().substring(content.strip().indexOf(':') + 1).strip();
            path[depth] = key;
            indents[depth] = indent;
            depth++;
            String prefix = String.join(".", Arrays.copyOf(path, depth));
            if (value.startsWith("{") && value.endsWith("}")) {
                flowKeys(value.substring(1, value.length() - 1)).forEach((inner) -> keys.add(prefix + "." + inner));
            }
            else if (!value.isEmpty()) {
                keys.add(prefix);
            }
        }
        return keys;
    }

    /** The keys of a flat flow mapping's content, e.g. {@code queue: reports, cron: "0 0 2 * * *"}. */
    private static List<String> flowKeys(String content) {
        List<String> keys = new ArrayList<>();
        StringBuilder entry = new StringBuilder();
        char quote = 0;
        for (char c : (content + ",").toCharArray()) {
            if (quote == 0 && c == ',') {
                keys.add(entry.substring(0, Math.max(entry.indexOf(":"), 0)).strip());
                entry.setLength(0);
                continue;
            }
            if (quote == 0 && (c == '"' || c == '\'')) {
                quote = c;
            }
            else if (c == quote) {
                quote = 0;
            }
            entry.append(c);
        }
        return keys;
    }
}
