package io.pgqueue.dashboard.autoconfigure;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.autoconfigure.PgQueueProperties;
import io.pgqueue.dashboard.DashboardAccess;
import io.pgqueue.dashboard.DashboardApiController;
import io.pgqueue.dashboard.DashboardPageController;
import io.pgqueue.dashboard.ThroughputHistory;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.CacheControl;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The dashboard, served by the application's own Spring MVC at {@code pgqueue.dashboard.path} (default
 * {@code /pgqueue}) when this module is on the classpath of a servlet web application. Read-only unless
 * {@code pgqueue.dashboard.read-only=false}, and even then only for signed-in users of Spring Security with
 * CSRF protection.
 */
@AutoConfiguration(after = PgQueueAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(QueueAdmin.class)
@ConditionalOnBooleanProperty(name = "pgqueue.dashboard.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PgQueueDashboardProperties.class)
public final class PgQueueDashboardAutoConfiguration implements BeanClassLoaderAware {

    private ClassLoader classLoader = PgQueueDashboardAutoConfiguration.class.getClassLoader();

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Bean
    DashboardAccess pgqueueDashboardAccess(PgQueueDashboardProperties properties) {
        return new DashboardAccess(properties.isReadOnly(), classLoader, properties.getPath(),
                properties.getOperatorRole());
    }

    @Bean
    DashboardApiController pgqueueDashboardApiController(QueueAdmin admin, DashboardAccess access,
            PgQueueDashboardProperties properties, ObjectProvider<PgQueueProperties> queueProperties) {
        PgQueueProperties queues = queueProperties.getIfAvailable(PgQueueProperties::new);
        return new DashboardApiController(admin, access, new ThroughputHistory(), properties.isShowPayloads(),
                queues.getHealth().getVacuumHoldWarning(), (queue, key) -> {
                    PgQueueProperties.Queue settings = queues.getQueues().get(queue);
                    PgQueueProperties.Fairness fairness = (settings != null) ? settings.getFairness()
                            : new PgQueueProperties.Fairness();
                    return fairness.getWeights().getOrDefault(key, fairness.getDefaultWeight());
                });
    }

    @Bean
    DashboardPageController pgqueueDashboardPageController(DashboardAccess access,
            PgQueueDashboardProperties properties) {
        return new DashboardPageController(properties.getPath(), access, properties.getRefreshInterval().toMillis(),
                properties.isShowPayloads());
    }

    /** The page's scripts and styles, from this jar. */
    @Bean
    WebMvcConfigurer pgqueueDashboardAssets(PgQueueDashboardProperties properties) {
        return new WebMvcConfigurer() {
            @Override
            public void addResourceHandlers(ResourceHandlerRegistry registry) {
                registry.addResourceHandler(properties.getPath() + "/assets/**")
                    .addResourceLocations("classpath:/io/pgqueue/dashboard/assets/")
                    .setCacheControl(CacheControl.noCache());
            }
        };
    }
}
