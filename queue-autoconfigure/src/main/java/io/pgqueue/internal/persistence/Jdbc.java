package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGResultSetMetaData;
import org.postgresql.PGStatement;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Runs {@link Sql} statements on the application's DataSource. Joins the caller's Spring-managed
 * transaction when one is active on this DataSource; outside of one (no transaction, NOT_SUPPORTED, SUPPORTS,
 * another DataSource's transaction), every call commits its own work even when the pool hands
 * out connections with auto-commit off, so no pgqueue write is lost to a pool setting and no transaction
 * is left open on a pooled connection.
 */
final class Jdbc {

    private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory.getLog(Jdbc.class);

    /** Binds a statement's parameters. */
    @FunctionalInterface
    interface Binder {

        Binder NONE = (params) -> {
        };

        void bind(Params params) throws SQLException;
    }

    /** Reads one row. */
    @FunctionalInterface
    interface RowReader<T> {

        T read(ResultSet row) throws SQLException;
    }

    /** Work on one prepared and bound statement. */
    @FunctionalInterface
    interface StatementWork<T> {

        T run(PreparedStatement statement) throws SQLException;
    }

    /** Work on one connection, for statements that return several results. */
    @FunctionalInterface
    interface ConnectionWork<T> {

        T run(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;

    /** Only for its exception translator, which it creates on first use. */
    private final JdbcTemplate template;

    private final int timeoutSeconds;

    /** What a failure names: pgqueue's statement, and its database where there are several. */
    private final String task;

    /** Told of the queues whose jobs a statement made ready beside its own rows ({@link Sql#wakes()}). */
    private volatile Consumer<String> jobsReady = (queue) -> {
    };

    /**
     * @param statementTimeout bound of every pgqueue statement, lock waits included (zero for none); enforced by
     * cancelling the statement ({@link StatementDeadlines}), so it needs no session setting and no extra statement
     */
    Jdbc(DataSource dataSource, Duration statementTimeout) {
        this(dataSource, statementTimeout, null);
    }

    /**
     * @param database the database's name where several are configured (its errors name it), else null
     */
    Jdbc(DataSource dataSource, Duration statementTimeout, @Nullable String database) {
        this.dataSource = dataSource;
        this.task = (database != null) ? "pgqueue statement on database '" + database + "'" : "pgqueue statement";
        this.template = new JdbcTemplate(dataSource);
        this.timeoutSeconds = (int) Math.min(Integer.MAX_VALUE,
                (statementTimeout.toMillis() + 999) / 1000);
    }

    /** Told of the dependency counts a statement left ({@link Sql#leavesDependencyCounts()}). */
    private volatile Consumer<long[]> dependencyCountsLeft = (ids) -> {
    };

    /**
     * Who folds the counts of satisfied edges a statement left for children it could not lock
     * ({@link DependencyCounts}): told once the statement returned, inside or outside a transaction.
     */
    void onDependencyCountsLeft(Consumer<long[]> sink) {
        this.dependencyCountsLeft = sink;
    }

    /**
     * Who is told of the queues whose jobs a statement made ready beside the rows it changed (a workflow's
     * dependants, a batch's callbacks): {@code Wakeups}, which wakes them once the caller's transaction committed.
     * Told after the statement's work committed, or, inside a caller's transaction, once the statement returned.
     */
    void onJobsReady(Consumer<String> sink) {
        this.jobsReady = sink;
    }

    DataSource dataSource() {
        return dataSource;
    }

    /** Runs the statement and reads every row it returns. */
    <T> List<T> query(Sql sql, Binder binder, RowReader<T> reader) {
        return query(sql, binder, reader, timeoutSeconds);
    }

    /**
     * As {@link #query(Sql, Binder, RowReader)}, bounded by its own timeout (whole seconds, at least one)
     * instead of the statement timeout.
     */
    <T> List<T> query(Sql sql, Binder binder, RowReader<T> reader, Duration timeout) {
        return query(sql, binder, reader, (int) Math.max(1, (timeout.toMillis() + 999) / 1000));
    }

    private <T> List<T> query(Sql sql, Binder binder, RowReader<T> reader, int timeoutSeconds) {
        return query(sql, binder, reader, timeoutSeconds, false);
    }

    /**
     * Runs the statement on a connection of pgqueue's own and commits it, even inside a transaction on this
     * DataSource: for a record that must stand whatever becomes of the caller's transaction (a durable step's
     * checkpoint, which says an external call happened).
     */
    <T> List<T> queryAlone(Sql sql, Binder binder, RowReader<T> reader) {
        return query(sql, binder, reader, timeoutSeconds, true);
    }

    private <T> List<T> query(Sql sql, Binder binder, RowReader<T> reader, int timeoutSeconds, boolean alone) {
        Set<String> woken = sql.wakes() ? new LinkedHashSet<>() : Set.of();
        List<Long> countsLeft = sql.leavesDependencyCounts() ? new ArrayList<>() : List.of();
        ConnectionWork<List<T>> work = (connection) -> run(connection, sql, binder, timeoutSeconds, (statement) -> {
            try (ResultSet rows = statement.executeQuery()) {
                List<T> result = new ArrayList<>();
                while (rows.next()) {
                    result.add(reader.read(rows));
                    if (sql.wakes()) {
                        readWoken(rows, woken);
                    }
                    if (sql.leavesDependencyCounts()) {
                        readCountsLeft(rows, countsLeft);
                    }
                }
                return result;
            }
        });
        List<T> found = alone ? executeAlone(work) : execute(work);
        wake(woken);
        countsLeft(countsLeft);
        return found;
    }

    /**
     * Tells of the queues a statement made jobs ready in. The statement's work stands whatever happens here: a
     * wake-up that cannot be sent (the database gone right after the commit) is logged, and the listeners find
     * the jobs at their next poll.
     */
    private void wake(Set<String> woken) {
        for (String queue : woken) {
            try {
                jobsReady.accept(queue);
            }
            catch (RuntimeException ex) {
                logger.warn("Could not wake the listeners of queue '" + queue + "' (they find its jobs at their next "
                        + "poll): " + ex.getMessage());
            }
        }
    }

    /** Hands on the dependency counts a statement left, to be folded once it committed. */
    private void countsLeft(List<Long> ids) {
        if (!ids.isEmpty()) {
            dependencyCountsLeft.accept(ids.stream().mapToLong(Long::longValue).toArray());
        }
    }

    /** Whether a result has the column (of several statements in one round trip, only one may). */
    private static boolean hasColumn(ResultSet row, String label) throws SQLException {
        java.sql.ResultSetMetaData columns = row.getMetaData();
        for (int column = 1; column <= columns.getColumnCount(); column++) {
            if (columns.getColumnLabel(column).equals(label)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Adds the ids of a row's {@code wf_deposits} column (an array, or null); a result without the column (another
     * statement of the same round trip) adds none.
     */
    private static void readCountsLeft(ResultSet row, List<Long> ids) throws SQLException {
        if (!hasColumn(row, "wf_deposits")) {
            return;
        }
        java.sql.Array deposits = row.getArray("wf_deposits");
        if (deposits != null) {
            ids.addAll(Arrays.asList((Long[]) deposits.getArray()));
        }
    }

    /** Adds the queues of a row's {@code …_woken} columns (arrays of queue names, or null). */
    private static void readWoken(ResultSet row, Set<String> woken) throws SQLException {
        java.sql.ResultSetMetaData columns = row.getMetaData();
        for (int column = 1; column <= columns.getColumnCount(); column++) {
            if (columns.getColumnLabel(column).endsWith("_woken")) {
                java.sql.Array queues = row.getArray(column);
                if (queues != null) {
                    woken.addAll(Arrays.asList((String[]) queues.getArray()));
                }
            }
        }
    }

    /** Runs a statement that returns one row with one number (e.g. {@code SELECT count(*) FROM changed}). */
    long count(Sql sql, Binder binder) {
        List<Long> counts = query(sql, binder, (row) -> row.getLong(1));
        return counts.isEmpty() ? 0 : counts.get(0);
    }

    /**
     * Runs several statements in one round trip (separated by semicolons), each returning one row with one
     * number, and adds those numbers up.
     */
    long countAll(Sql sql, Binder binder) {
        Set<String> woken = sql.wakes() ? new LinkedHashSet<>() : Set.of();
        List<Long> countsLeft = sql.leavesDependencyCounts() ? new ArrayList<>() : List.of();
        long counted = execute((connection) -> run(connection, sql, binder, (statement) -> {
            long total = 0;
            boolean rows = statement.execute();
            while (rows || statement.getUpdateCount() != -1) {
                if (rows) {
                    try (ResultSet result = statement.getResultSet()) {
                        if (result.next()) {
                            total += result.getLong(1);
                            if (sql.wakes()) {
                                readWoken(result, woken);
                            }
                            if (sql.leavesDependencyCounts()) {
                                readCountsLeft(result, countsLeft);
                            }
                        }
                    }
                }
                rows = statement.getMoreResults();
            }
            return total;
        }));
        wake(woken);
        countsLeft(countsLeft);
        return counted;
    }

    /** Runs a statement without a result set; returns the number of rows it changed. */
    int update(Sql sql, Binder binder) {
        return execute((connection) -> run(connection, sql, binder, PreparedStatement::executeUpdate));
    }

    /**
     * Prepares and binds one of pgqueue's statements on the given connection and runs the work on it, bounded by
     * the statement timeout.
     */
    <T> T run(Connection connection, Sql sql, Binder binder, StatementWork<T> work) throws SQLException {
        return run(connection, sql, binder, timeoutSeconds, work);
    }

    private static <T> T run(Connection connection, Sql sql, Binder binder, int timeoutSeconds, StatementWork<T> work)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, binder)) {
            return StatementDeadlines.SHARED.run(statement, timeoutSeconds, () -> work.run(statement));
        }
    }

    /** Prepares and binds a statement on the given connection. */
    static PreparedStatement prepare(Connection connection, Sql sql, Binder binder) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql.jdbcSql());
        try {
            if (sql.isPlannedPerExecution()) {
                PgStatements.planEachExecution(statement);
            }
            else if (sql.isPreparedAtOnce()) {
                PgStatements.prepareAtOnce(statement);
            }
            Params params = new Params(sql, connection, statement);
            binder.bind(params);
            params.checkComplete();
            return statement;
        }
        catch (SQLException | RuntimeException ex) {
            statement.close();
            throw ex;
        }
    }

    /**
     * Touches the PostgreSQL driver's own types only when the driver is there (it is an optional dependency): the
     * one place in pgqueue that does.
     */
    static final class PgStatements {

        private static final boolean DRIVER_PRESENT = ClassUtils.isPresent("org.postgresql.PGStatement",
                Jdbc.class.getClassLoader());

        /**
         * Whether PostgreSQL has aborted the connection's transaction (a statement failed; every later one and the
         * commit are refused), as the driver tracks it from each response: no round trip. False when the
         * connection is not the PostgreSQL driver's.
         */
        static boolean transactionAborted(Connection connection) throws SQLException {
            return DRIVER_PRESENT && connection.isWrapperFor(BaseConnection.class)
                    && connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED;
        }

        /**
         * Whether the driver sent the column of this result in binary form (a server-prepared statement's rows);
         * false when the result is not the PostgreSQL driver's.
         */
        static boolean binaryFormat(ResultSet rows, int column) throws SQLException {
            if (!DRIVER_PRESENT) {
                return false;
            }
            java.sql.ResultSetMetaData metaData = rows.getMetaData();
            return metaData.isWrapperFor(PGResultSetMetaData.class)
                    && metaData.unwrap(PGResultSetMetaData.class).getFormat(column) == 1;
        }

        /** Prepared on the server at its first execution, unless the connection never prepares (threshold 0). */
        static void prepareAtOnce(PreparedStatement statement) throws SQLException {
            if (DRIVER_PRESENT && statement.isWrapperFor(PGStatement.class)) {
                PGStatement driverStatement = statement.unwrap(PGStatement.class);
                if (driverStatement.getPrepareThreshold() > 1) {
                    driverStatement.setPrepareThreshold(1);
                }
            }
        }

        static void planEachExecution(PreparedStatement statement) throws SQLException {
            if (DRIVER_PRESENT && statement.isWrapperFor(PGStatement.class)) {
                // never prepared on the server: each execution is planned for its values
                statement.unwrap(PGStatement.class).setPrepareThreshold(0);
            }
        }
    }

    /**
     * Runs work on a connection of the current transaction or, outside of one, on a pooled connection whose
     * work is committed before it goes back to the pool (rolled back if the work failed).
     */
    <T> T execute(ConnectionWork<T> work) {
        if (inTransactionOnDataSource()) {
            // DataSourceUtils directly, not JdbcTemplate.execute: its close-suppressing proxy put a reflective call
            // on every connection method of every send; exceptions are translated the same way
            return runAndRelease(work, DataSourceUtils.getConnection(dataSource), dataSource);
        }
        return executeAlone(work);
    }

    /** Runs work on a pooled connection of pgqueue's own, committed before it goes back to the pool. */
    private <T> T executeAlone(ConnectionWork<T> work) {
        // outside of a transaction on this DataSource, a connection of pgqueue's own that commits its work. Not
        // DataSourceUtils: under NOT_SUPPORTED or SUPPORTS, or in another DataSource's transaction, synchronisation
        // is active and it would bind the connection to it; nobody commits that connection, and with auto-commit
        // off the pool rolls the work back when it is released (a send returned an id and stored nothing)
        Connection connection;
        try {
            connection = dataSource.getConnection();
        }
        catch (SQLException ex) {
            throw new CannotGetJdbcConnectionException("Failed to obtain a JDBC connection for " + task + ": "
                    + ex.getMessage(), ex);
        }
        return runAndRelease(work, connection, null);
    }

    /**
     * Whether the transaction this thread holds on the DataSource was aborted by a failed statement: a handler
     * that caught an SQL error and returned leaves it so, and its commit would silently roll back. False outside
     * of such a transaction.
     */
    boolean transactionAborted() {
        // the transaction's connection read from its holder, one look-up of the thread's resources, not
        // DataSourceUtils' get and release (three): asked after every TRANSACTIONAL job a handler ran
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)
                || holder.getConnectionHandle() == null) {
            return false;
        }
        try {
            return PgStatements.transactionAborted(holder.getConnection());
        }
        catch (SQLException ex) {
            throw translated(ex);
        }
    }

    /**
     * Whether a transaction is actually active and holds a connection of this DataSource (bound by
     * DataSourceTransactionManager, or by JpaTransactionManager exposing its JDBC connection): the only scope a
     * pgqueue statement joins.
     */
    boolean inTransactionOnDataSource() {
        return TransactionSynchronizationManager.getResource(dataSource) != null
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * Runs the work on the connection and releases it, as DataSourceUtils does: a failed close is logged, never
     * thrown over work that committed.
     *
     * @param managedBy the DataSource whose Spring-managed transaction may hold the connection, or null for a
     * connection of pgqueue's own
     */
    private <T> T runAndRelease(ConnectionWork<T> work, @Nullable Connection connection, @Nullable DataSource managedBy) {
        try {
            boolean ownCommit = !connection.getAutoCommit()
                    && (managedBy == null || !DataSourceUtils.isConnectionTransactional(connection, managedBy));
            return returned(runCommitted(work, connection, ownCommit));
        }
        catch (SQLException ex) {
            // released before translating, as JdbcTemplate does: the translator may need a connection of its own
            DataSourceUtils.releaseConnection(connection, managedBy);
            connection = null;
            throw translated(ex);
        }
        finally {
            DataSourceUtils.releaseConnection(connection, managedBy);
        }
    }

    private static <T> T returned(@Nullable T result) {
        if (result == null) {
            throw new IllegalStateException("JDBC work returned no result");
        }
        return result;
    }

    private RuntimeException translated(SQLException ex) {
        DataAccessException translated = template.getExceptionTranslator().translate(task, null, ex);
        return (translated != null) ? translated : new UncategorizedSQLException(task, null, ex);
    }

    /** Runs the work, committing it (rolling it back if it failed) when the connection is pgqueue's own. */
    private static <T> T runCommitted(ConnectionWork<T> work, Connection connection, boolean ownCommit)
            throws SQLException {
        try {
            T value = work.run(connection);
            if (ownCommit) {
                connection.commit();
            }
            return value;
        }
        catch (SQLException | RuntimeException ex) {
            if (ownCommit) {
                connection.rollback();
            }
            throw ex;
        }
    }
}
