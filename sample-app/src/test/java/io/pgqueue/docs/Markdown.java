package io.pgqueue.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the docs tests need of a Markdown page: its headings' anchors, its links and its fenced code blocks. */
final class Markdown {

    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");

    /** A fenced code block: its language, its text, and the comment line just above its fence, if any. */
    record CodeBlock(String language, String code, String marker, int line) {
    }

    private final List<String> lines;

    Markdown(String text) {
        this.lines = text.lines().toList();
    }

    /** The anchors GitHub gives the page's headings (lower case, punctuation dropped, spaces as hyphens). */
    Set<String> anchors() {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose()) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = heading.group(1).strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                    .replace(' ', '-');
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
            }
        }
        return anchors;
    }

    /** The targets of the page's links outside code. */
    List<String> links() {
        List<String> links = new ArrayList<>();
        for (String line : prose()) {
            Matcher link = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (link.find()) {
                links.add(link.group(1));
            }
        }
        return links;
    }

    /** The lines outside fenced code blocks (the fences themselves left out). */
    private List<String> prose() {
        List<String> prose = new ArrayList<>();
        boolean fenced = false;
        for (String line : lines) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            else if (!fenced) {
                prose.add(line);
            }
        }
        return prose;
    }

    /** The page's fenced code blocks, in order. */
    List<CodeBlock> codeBlocks() {
        List<CodeBlock> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                String language = line.substring(3).strip();
                String marker = (i > 0) ? lines.get(i - 1).strip() : "";
                int start = i;
                StringBuilder code = new StringBuilder();
                for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
                    code.append(lines.get(i)).append('\n');
                }
                blocks.add(new CodeBlock(language, code.toString(), marker, start + 1));
            }
        }
        return blocks;
    }
}
