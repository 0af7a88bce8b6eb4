package io.pgqueue.support;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

/**
 * Wraps a DataSource and counts the statements its connections prepare, to prove that a batch travels in a
 * bounded number of statements. Only statements whose SQL contains the given text count, so background
 * work (maintenance, notifications) on the same DataSource does not disturb the count.
 */
public final class StatementCounter {

    private final String sqlFragment;

    /** Counts every statement. */
    public StatementCounter() {
        this("");
    }

    /** Counts the statements whose SQL contains {@code sqlFragment}. */
    public StatementCounter(String sqlFragment) {
        this.sqlFragment = sqlFragment;
    }


    private static final Set<String> STATEMENT_METHODS = Set.of("prepareStatement", "prepareCall", "createStatement");

    private final AtomicInteger statements = new AtomicInteger();

    private final java.util.List<String> counted = new java.util.concurrent.CopyOnWriteArrayList<>();

    public DataSource wrap(DataSource target) {
        return proxy(DataSource.class, target, (method, args, result) -> (method.getName().equals("getConnection"))
                ? proxy(Connection.class, result, this::countStatement) : result);
    }

    public int count() {
        return statements.get();
    }

    public void reset() {
        statements.set(0);
        counted.clear();
    }

    /** The SQL of the statements counted since the last reset, for assertion messages. */
    public String statements() {
        return String.join("\n---\n", counted);
    }

    private Object countStatement(Method method, Object[] args, Object result) {
        boolean matches = sqlFragment.isEmpty()
                || (args != null && args.length > 0 && args[0] instanceof String sql && sql.contains(sqlFragment));
        if (STATEMENT_METHODS.contains(method.getName()) && matches) {
            statements.incrementAndGet();
            counted.add(String.valueOf((args != null && args.length > 0) ? args[0] : method.getName()));
        }
        return result;
    }

    private static <T> T proxy(Class<T> type, Object target, ResultMapper mapper) {
        InvocationHandler handler = (proxy, method, args) -> {
            try {
                return mapper.map(method, args, method.invoke(target, args));
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(StatementCounter.class.getClassLoader(), new Class<?>[] { type },
                handler));
    }

    @FunctionalInterface
    private interface ResultMapper {

        Object map(Method method, Object[] args, Object result);
    }
}
