package io.pgqueue.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A primary and a streaming replica made from the PostgreSQL server binaries on the machine (Debian's
 * {@code postgresql}: {@code initdb}, {@code pg_ctl}, {@code pg_basebackup}), for failover tests: the primary
 * can be killed and the standby promoted. Synchronous replication waits for the standby's flush before a
 * commit returns; asynchronous does not. PostgreSQL refuses to run as root: as root the servers run as the
 * {@code postgres} user.
 */
public final class ReplicatedPostgres implements AutoCloseable {

    private static final String STANDBY_NAME = "pgqueue_standby";

    private final Path binaries;

    private final Path directory;

    private final int primaryPort;

    private final int standbyPort;

    private ReplicatedPostgres(Path binaries, Path directory, int primaryPort, int standbyPort) {
        this.binaries = binaries;
        this.directory = directory;
        this.primaryPort = primaryPort;
        this.standbyPort = standbyPort;
    }

    /**
     * Starts a primary and a standby streaming from it; skips the test when the binaries are not installed
     * (see {@link RealComponents}).
     */
    public static ReplicatedPostgres start(boolean synchronous) {
        Path binaries = RealComponents.executable("pg_basebackup", "postgresql", newestServerBinary())
            .getParent();
        try {
            Path directory = Files.createTempDirectory("pgqueue-replicated");
            ReplicatedPostgres servers = new ReplicatedPostgres(binaries, directory, FreePorts.next(), FreePorts.next());
            servers.initialise(synchronous);
            return servers;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static String newestServerBinary() {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map((version) -> version.resolve("bin/pg_basebackup"))
                .filter(Files::isExecutable)
                .max(Comparator.comparingInt((path) -> Integer.parseInt(path.getParent().getParent().getFileName().toString())))
                .map(Path::toString)
                .orElse("/usr/lib/postgresql/none/bin/pg_basebackup");
        }
        catch (IOException | NumberFormatException ex) {
            return "/usr/lib/postgresql/none/bin/pg_basebackup";
        }
    }

    private void initialise(boolean synchronous) throws IOException {
        if (runsAsRoot()) {
            UserPrincipalLookupService users = directory.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(directory, users.lookupPrincipalByName("postgres"));
        }
        Path primary = directory.resolve("primary");
        run("initdb", "-D", primary.toString(), "-U", "postgres", "-A", "trust", "--no-sync");
        Files.writeString(primary.resolve("postgresql.conf"), """
                listen_addresses = '127.0.0.1'
                port = %d
                unix_socket_directories = '%s'
                wal_level = replica
                max_wal_senders = 5
                max_connections = 100
                fsync = off
                synchronous_commit = on
                synchronous_standby_names = '%s'
                """.formatted(primaryPort, directory, synchronous ? STANDBY_NAME : ""),
                java.nio.file.StandardOpenOption.APPEND);
        startServer(primary);
        Path standby = directory.resolve("standby");
        run("pg_basebackup", "-h", "127.0.0.1", "-p", String.valueOf(primaryPort), "-U", "postgres", "-D",
                standby.toString(), "-R", "-X", "stream", "--no-sync");
        // the standby's walreceiver names itself after cluster_name: the name synchronous replication waits for;
        // promoted, it has no standby of its own to wait for
        Files.writeString(standby.resolve("postgresql.conf"), """
                port = %d
                cluster_name = '%s'
                hot_standby = on
                synchronous_standby_names = ''
                """.formatted(standbyPort, STANDBY_NAME), java.nio.file.StandardOpenOption.APPEND);
        startServer(standby);
    }

    private void startServer(Path data) {
        run("pg_ctl", "-D", data.toString(), "-l", data + ".log", "-w", "-t", "60", "start");
    }

    /** The JDBC URL of both servers, which connects to whichever is the primary. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + ",127.0.0.1:" + standbyPort
                + "/postgres?targetServerType=primary&connectTimeout=2";
    }

    /** The JDBC URL of the standby alone. */
    public String standbyJdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + standbyPort + "/postgres";
    }

    /** The JDBC URL of the first primary alone. */
    public String primaryJdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + "/postgres";
    }

    /** Kills the primary: immediate shutdown, as after a crash (no checkpoint, connections cut). */
    public void killPrimary() {
        run("pg_ctl", "-D", directory.resolve("primary").toString(), "-m", "immediate", "-w", "stop");
    }

    /** Promotes the standby to primary and waits until it accepts writes. */
    public void promoteStandby() {
        run("pg_ctl", "-D", directory.resolve("standby").toString(), "-w", "-t", "60", "promote");
    }

    @Override
    public void close() {
        for (String server : List.of("primary", "standby")) {
            Path data = directory.resolve(server);
            if (Files.exists(data.resolve("postmaster.pid"))) {
                try {
                    run("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "stop");
                }
                catch (IllegalStateException alreadyStopped) {
                    // a stale pid file of a killed server: nothing left to stop
                }
            }
        }
    }

    private void run(String program, String... arguments) {
        List<String> command = new ArrayList<>();
        if (runsAsRoot()) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(binaries.resolve(program).toString());
        command.addAll(List.of(arguments));
        try {
            Path output = Files.createTempFile("pgqueue-" + program, ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                .start();
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: " + Files.readString(output));
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static boolean runsAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
