package io.pgqueue.benchmark;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Counts the statements an application sends through its DataSource (each prepared or created statement):
 * the database calls a node makes, without the server's own transactions (autovacuum) or other clients'.
 */
final class StatementCounting implements BeanPostProcessor {

    /** The property that registers it (off by default). */
    static final String PROPERTY = "bench.count-statements";

    /** The transition tag of the claims (claim_lease, claim_delete) and of a claim taken back (claim_restore). */
    private static final String CLAIM_TAG = "/* pgqueue:claim_";

    private static final Set<String> STATEMENTS = Set.of("prepareStatement", "createStatement", "prepareCall");

    final AtomicLong statements = new AtomicLong();

    /** Of those, the claims (by the statement's transition tag). */
    final AtomicLong claims = new AtomicLong();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof DataSource dataSource)) {
            return bean;
        }
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { DataSource.class },
                (proxy, method, arguments) -> {
                    Object result = invoke(dataSource, method, arguments);
                    return (result instanceof Connection connection) ? counting(connection) : result;
                });
    }

    private Connection counting(Connection connection) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
                (proxy, method, arguments) -> {
                    if (STATEMENTS.contains(method.getName())) {
                        statements.incrementAndGet();
                        if (arguments != null && arguments.length > 0 && arguments[0] instanceof String sql
                                && sql.contains(CLAIM_TAG)) {
                            claims.incrementAndGet();
                        }
                    }
                    return invoke(connection, method, arguments);
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] arguments) throws Throwable {
        try {
            return method.invoke(target, arguments);
        }
        catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }
}
