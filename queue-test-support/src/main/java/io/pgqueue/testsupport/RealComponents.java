package io.pgqueue.testsupport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;

/**
 * Infrastructure beyond PostgreSQL that some tests run for real (PgBouncer, a streaming replica's binaries),
 * from Debian's packages. Without it a test is skipped and says why; with {@value #REQUIRED_VARIABLE}{@code =true}
 * (set by {@code .ci/run}, which installs the packages) a missing component fails the test instead.
 */
public final class RealComponents {

    public static final String REQUIRED_VARIABLE = "PGQUEUE_REAL_COMPONENTS_REQUIRED";

    private RealComponents() {
    }

    /**
     * The executable of a component: found among the given places or on the {@code PATH}; otherwise the test
     * is skipped (or fails, when components are required).
     *
     * @param name the executable's name, looked up on the {@code PATH}
     * @param debianPackage the Debian package that installs it
     * @param places further places to look, e.g. {@code /usr/sbin/pgbouncer}
     */
    public static Path executable(String name, String debianPackage, String... places) {
        List<Path> candidates = new ArrayList<>();
        for (String place : places) {
            candidates.add(Path.of(place));
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String directory : path.split(File.pathSeparator)) {
                candidates.add(Path.of(directory, name));
            }
        }
        for (Path candidate : candidates) {
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        String missing = name + " is not installed (Debian package '" + debianPackage + "')";
        if (required()) {
            throw new IllegalStateException(missing + ", and " + REQUIRED_VARIABLE + "=true requires it");
        }
        Assumptions.abort(missing + ": test skipped. .ci/run installs it and sets " + REQUIRED_VARIABLE
                + "=true, under which this test fails instead of skipping");
        throw new AssertionError("unreachable");
    }

    /** Whether missing components fail tests rather than skip them. */
    public static boolean required() {
        return Boolean.parseBoolean(System.getenv(REQUIRED_VARIABLE));
    }
}
