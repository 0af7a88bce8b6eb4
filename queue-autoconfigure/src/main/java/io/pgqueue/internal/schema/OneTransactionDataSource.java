package io.pgqueue.internal.schema;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;

import org.springframework.jdbc.datasource.AbstractDataSource;

/**
 * Hands Flyway one connection whose transaction Flyway cannot end: its commits and auto-commit switches are
 * ignored and closing it does nothing, so the whole migration commits (or rolls back) at once with
 * {@link io.pgqueue.internal.persistence.MigrationSession}. A rollback Flyway asks for happens, and is
 * remembered: what came before it is gone, so the migration must not be committed as if whole.
 */
final class OneTransactionDataSource extends AbstractDataSource {

    private final Connection connection;

    private final Connection guarded;

    private boolean rolledBack;

    OneTransactionDataSource(Connection connection) {
        this.connection = connection;
        this.guarded = (Connection) Proxy.newProxyInstance(OneTransactionDataSource.class.getClassLoader(),
                new Class<?>[] { Connection.class }, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "commit", "close", "setAutoCommit":
                            return null;
                        case "getAutoCommit":
                            return false;
                        case "isClosed":
                            return connection.isClosed();
                        case "rollback":
                            if (args == null) {
                                rolledBack = true;
                            }
                            break;
                        case "equals":
                            return proxy == args[0];
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        default:
                            break;
                    }
                    try {
                        return method.invoke(connection, args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getTargetException();
                    }
                });
    }

    @Override
    public Connection getConnection() {
        return guarded;
    }

    @Override
    public Connection getConnection(String username, String password) {
        return guarded;
    }

    /** Whether Flyway rolled the transaction back part-way. */
    boolean rolledBack() {
        return rolledBack;
    }
}
