package io.pgqueue.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The repository's documentation as the docs tests read it: README.md and the pages under docs/. */
final class Repository {

    /** The repository root: the sample application's tests run in its module directory. */
    static final Path ROOT = root();

    /** Set to rewrite generated documentation instead of failing on a difference. */
    static final boolean WRITE = Boolean.getBoolean("pgqueue.docs.write");

    private Repository() {
    }

    private static Path root() {
        Path module = Path.of("").toAbsolutePath();
        Path root = Files.exists(module.resolve("docs")) ? module : module.getParent();
        if (!Files.isRegularFile(root.resolve("README.md")) || !Files.isDirectory(root.resolve("docs"))) {
            throw new IllegalStateException("README.md and docs/ not found from " + module);
        }
        return root;
    }

    /** README.md and every Markdown page under docs/, as paths relative to the root. */
    static List<Path> markdownFiles() {
        List<Path> files = new ArrayList<>();
        files.add(Path.of("README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter((file) -> file.toString().endsWith(".md")).sorted().forEach((file) -> files.add(ROOT.relativize(file)));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return files;
    }

    static String read(Path relative) {
        try {
            return Files.readString(ROOT.resolve(relative));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static void write(Path relative, String text) {
        try {
            Files.writeString(ROOT.resolve(relative), text);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
