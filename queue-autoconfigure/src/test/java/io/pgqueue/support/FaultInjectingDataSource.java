package io.pgqueue.support;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A DataSource that throws an {@link InjectedError} when a statement matching a predicate is prepared or
 * executed, a given number of times, then behaves: the way a driver or the JVM fails under one of pgqueue's
 * background threads (an {@code Error}, which their loops used to let kill them).
 */
public final class FaultInjectingDataSource extends DelegatingDataSource {

    private volatile Predicate<String> matches = (sql) -> false;

    private final AtomicInteger remaining = new AtomicInteger();

    private final AtomicInteger thrown = new AtomicInteger();

    public FaultInjectingDataSource(DataSource target) {
        super(target);
    }

    /** The error a fault throws. */
    public static final class InjectedError extends Error {

        InjectedError(String sql) {
            super("injected error on: " + sql.strip().lines().findFirst().orElse(""));
        }
    }

    /** Throws on the next {@code times} statements whose SQL matches. */
    public void failNext(int times, Predicate<String> sql) {
        this.matches = sql;
        this.remaining.set(times);
    }

    /** How many errors were thrown so far. */
    public int thrown() {
        return thrown.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(super.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(super.getConnection(username, password));
    }

    private void check(String sql) {
        if (matches.test(sql) && remaining.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
            thrown.incrementAndGet();
            throw new InjectedError(sql);
        }
    }

    private Connection wrap(Connection connection) {
        return proxy(Connection.class, connection, (method, args) -> {
            if ((method.getName().equals("prepareStatement") || method.getName().equals("prepareCall"))
                    && args != null && args[0] instanceof String sql) {
                check(sql);
            }
            Object result = method.invoke(connection, args);
            if (result instanceof Statement statement && method.getName().equals("createStatement")) {
                return proxy(Statement.class, statement, (inner, innerArgs) -> {
                    if (inner.getName().startsWith("execute") && innerArgs != null && innerArgs.length > 0
                            && innerArgs[0] instanceof String sql) {
                        check(sql);
                    }
                    return inner.invoke(statement, innerArgs);
                });
            }
            return result;
        });
    }

    /** A call on the wrapped object; reflection's wrapping of the target's exceptions is undone by the caller. */
    @FunctionalInterface
    private interface Call {

        Object invoke(Method method, Object[] args) throws Throwable;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, T target, Call call) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
                return method.invoke(target, args);
            }
            try {
                return call.invoke(method, args);
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        };
        return (T) Proxy.newProxyInstance(FaultInjectingDataSource.class.getClassLoader(), new Class<?>[] { type },
                handler);
    }
}
