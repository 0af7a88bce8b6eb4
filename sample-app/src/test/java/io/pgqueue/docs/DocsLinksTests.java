package io.pgqueue.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Every relative link of README.md and docs/ leads to a file that exists and, with an anchor, to a heading of it. */
class DocsLinksTests {

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : Repository.markdownFiles()) {
            for (String link : new Markdown(Repository.read(page)).links()) {
                if (link.matches("^[a-z][a-z0-9+.-]*:.*")) {
                    continue; // http(s), mailto: not ours to check offline
                }
                checked++;
                String problem = problem(page, link);
                if (problem != null) {
                    broken.add(page + ": (" + link + ") " + problem);
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
        assertThat(checked).as("relative links checked").isGreaterThan(50);
    }

    @Test
    void theReadmeIsAFrontPageThatReachesEveryGuide() {
        String readme = Repository.read(Path.of("README.md"));
        assertThat(readme.lines().count()).as("README lines").isLessThanOrEqualTo(350);
        List<String> links = new Markdown(readme).links();
        for (Path page : Repository.markdownFiles()) {
            String guide = page.toString().replace('\\', '/');
            if (guide.startsWith("docs/") && page.getNameCount() == 2) {
                assertThat(links).as("README links to " + guide)
                    .anyMatch((link) -> link.equals(guide) || link.startsWith(guide + "#"));
            }
        }
    }

    @Test
    void aBrokenLinkOrAnchorIsFound() {
        assertThat(problem(Path.of("README.md"), "docs/no-such-page.md")).isEqualTo("no such file");
        assertThat(problem(Path.of("README.md"), "docs/consuming.md#no-such-heading")).isEqualTo("no such anchor");
        assertThat(problem(Path.of("README.md"), "#no-such-heading")).isEqualTo("no such anchor");
        assertThat(problem(Path.of("docs", "consuming.md"), "publishing.md#enqueue-from-sql")).isNull();
        assertThat(new Markdown("## Counting without `COUNT(*)`\n## A, b & c\n## A, b & c").anchors())
            .containsExactly("counting-without-count", "a-b--c", "a-b--c-1");
    }

    private static String problem(Path page, String link) {
        int hash = link.indexOf('#');
        String file = (hash >= 0) ? link.substring(0, hash) : link;
        String anchor = (hash >= 0) ? link.substring(hash + 1) : null;
        // a page at the root has no parent: its sibling is the path itself
        Path target = file.isEmpty() ? page : page.resolveSibling(file).normalize();
        if (!Files.exists(Repository.ROOT.resolve(target))) {
            return "no such file";
        }
        if (anchor != null && target.toString().endsWith(".md")
                && !new Markdown(Repository.read(target)).anchors().contains(anchor)) {
            return "no such anchor";
        }
        return null;
    }
}
