package io.pgqueue.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real PgBouncer (Debian's {@code pgbouncer}) in transaction pooling mode in front of a test database: every
 * client transaction may run on any of a few shared server connections, as in production behind a pooler.
 */
public final class PgBouncer implements AutoCloseable {

    private final Process process;

    private final Path log;

    private final int port;

    private final String database;

    private PgBouncer(Process process, Path log, int port, String database) {
        this.process = process;
        this.log = log;
        this.port = port;
        this.database = database;
    }

    /**
     * Starts PgBouncer in front of the database with the given number of server connections; skips the test
     * when PgBouncer is not installed (see {@link RealComponents}).
     */
    public static PgBouncer start(TestDatabase target, int serverConnections) {
        Path executable = RealComponents.executable("pgbouncer", "pgbouncer", "/usr/sbin/pgbouncer");
        try {
            URI uri = URI.create(target.jdbcUrl().substring("jdbc:".length()));
            int port = FreePorts.next();
            Path directory = Files.createTempDirectory("pgqueue-pgbouncer");
            // PgBouncer will not run as root; it then runs as nobody, who must read the configuration
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path configuration = directory.resolve("pgbouncer.ini");
            String password = target.password().isEmpty() ? "" : " password=" + target.password();
            Files.writeString(configuration, """
                    [databases]
                    * = host=%s port=%d user=%s%s

                    [pgbouncer]
                    listen_addr = 127.0.0.1
                    listen_port = %d
                    unix_socket_dir =
                    auth_type = any
                    pool_mode = transaction
                    default_pool_size = %d
                    max_client_conn = 500
                    ignore_startup_parameters = extra_float_digits,options
                    """.formatted(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 5432, target.username(),
                    password, port, serverConnections));
            Files.setPosixFilePermissions(configuration, PosixFilePermissions.fromString("rw-r--r--"));
            List<String> command = new ArrayList<>(List.of(executable.toString()));
            if ("root".equals(System.getProperty("user.name"))) {
                command.addAll(List.of("-u", "nobody"));
            }
            command.add(configuration.toString());
            Path log = directory.resolve("pgbouncer.log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            PgBouncer bouncer = new PgBouncer(process, log, port, target.name());
            bouncer.awaitListening();
            return bouncer;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void awaitListening() throws IOException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("PgBouncer exited: " + Files.readString(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            }
            catch (IOException notYet) {
                // polling a port that is about to open: PgBouncer has no readiness signal
                process.onExit().completeOnTimeout(null, 50, TimeUnit.MILLISECONDS).join();
            }
        }
        close();
        throw new IllegalStateException("PgBouncer did not listen on port " + port + " within 20 s: " + Files.readString(log));
    }

    /**
     * The JDBC URL of the database through PgBouncer, without server-side prepared statements (which
     * transaction pooling cannot keep; PgBouncer 1.21 and later can, with {@code max_prepared_statements}).
     */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?prepareThreshold=0";
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
