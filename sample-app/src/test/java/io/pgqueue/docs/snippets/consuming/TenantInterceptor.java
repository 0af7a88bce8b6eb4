package io.pgqueue.docs.snippets.consuming;

import io.pgqueue.listener.JobInterceptor;

import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/** The tenant the current thread works for. */
final class TenantContext {

    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private TenantContext() {
    }

    static void set(String tenant) {
        CURRENT.set(tenant);
    }

    static void clear() {
        CURRENT.remove();
    }
}

// tag::interceptor[]
@Component
@Order(1)
class TenantInterceptor implements JobInterceptor {

    @Override
    public Object intercept(JobRun run) throws Exception {
        // the producer sent the tenant as a header; every job of a batch comes from one here
        TenantContext.set(run.jobs().get(0).headers().getOrDefault("tenant", "public"));
        try {
            return run.proceed();
        }
        finally {
            TenantContext.clear();
        }
    }
}
// end::interceptor[]
