package io.pgqueue.autoconfigure;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.util.ClassUtils;

/** The size of a DataSource's pool, where pgqueue can tell it (HikariCP, Boot's default pool). */
final class PoolSizes {

    private static final boolean HIKARI = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
            PoolSizes.class.getClassLoader());

    private PoolSizes() {
    }

    /** The most connections the pool holds, or 0 when it is no pool pgqueue knows. */
    static int maximum(DataSource dataSource) {
        if (!HIKARI) {
            return 0;
        }
        com.zaxxer.hikari.HikariDataSource hikari = DataSourceUnwrapper.unwrap(dataSource,
                com.zaxxer.hikari.HikariDataSource.class);
        return (hikari != null) ? hikari.getMaximumPoolSize() : 0;
    }
}
