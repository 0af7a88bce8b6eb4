package io.pgqueue.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pgqueue.testsupport.RealComponents;
import org.junit.jupiter.api.Assumptions;

/**
 * The soak jar of an earlier version of pgqueue, for rolling-upgrade tests: built from the git history of this
 * clone (the commit's tree, packaged with its own Maven wrapper, once per working copy), or taken from
 * {@value #JAR_VARIABLE}. Without git history (a source tarball) the test is skipped and says why, or fails when
 * real components are required, as in CI.
 */
final class OlderBuild {

    static final String JAR_VARIABLE = "PGQUEUE_UPGRADE_FROM_JAR";

    private OlderBuild() {
    }

    /** The executable soak jar of {@code commit}. */
    static Path soakJar(String commit) throws IOException, InterruptedException {
        String given = System.getenv(JAR_VARIABLE);
        if (given != null && !given.isBlank()) {
            return Path.of(given);
        }
        Path module = Path.of("").toAbsolutePath();
        Path root = module.getParent();
        Path tree = module.resolve("target").resolve("upgrade-from-" + commit);
        Path jar = tree.resolve("queue-reliability/target/queue-soak.jar");
        if (Files.isRegularFile(jar)) {
            return jar;
        }
        if (run(root, List.of("git", "cat-file", "-e", commit + "^{commit}")) != 0) {
            String missing = "the older version " + commit + " is not in this clone's git history (a shallow clone or "
                    + "a source tarball); set " + JAR_VARIABLE + " to its queue-soak.jar instead";
            if (RealComponents.required()) {
                throw new IllegalStateException(missing);
            }
            Assumptions.abort(missing + ": test skipped");
        }
        Files.createDirectories(tree);
        check(run(root, List.of("bash", "-c", "git archive " + commit + " | tar -x -C '" + tree + "'")), "git archive");
        check(run(tree, List.of("./mvnw", "-B", "-q", "package", "-DskipTests", "-Dmaven.javadoc.skip=true",
                "-pl", "queue-reliability", "-am")), "the build of " + commit);
        return jar;
    }

    private static int run(Path directory, List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(directory.toFile()).inheritIO().start();
        if (!process.waitFor(15, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " took longer than 15 minutes");
        }
        return process.exitValue();
    }

    private static void check(int exitCode, String what) {
        if (exitCode != 0) {
            throw new IllegalStateException(what + " failed (exit code " + exitCode + ")");
        }
    }
}
