package io.pgqueue.dashboard;

import java.security.Principal;

import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.util.ClassUtils;

/**
 * Who may act through the dashboard. Reading is the application's security's business alone; acting also
 * needs, whatever that security says: the dashboard switched to read-write, Spring Security in the
 * application, a signed-in user, and CSRF protection on the request. Every action is logged with its user.
 */
final class DashboardAccess {

    private static final Log logger = LogFactory.getLog(DashboardAccess.class);

    private static final String CSRF_TOKEN_CLASS = "org.springframework.security.web.csrf.CsrfToken";

    private final boolean readOnly;

    private final boolean securityPresent;

    private final String path;

    DashboardAccess(boolean readOnly, @Nullable ClassLoader classLoader, String path) {
        this.readOnly = readOnly;
        this.securityPresent = ClassUtils.isPresent(CSRF_TOKEN_CLASS, classLoader);
        this.path = path;
    }

    /** Why this request may not act, or null when it may. */
    @Nullable String refusal(HttpServletRequest request) {
        if (readOnly) {
            return "The pgqueue dashboard is read-only. To allow its actions, restrict " + path + "/** to an operator "
                    + "role with Spring Security and set pgqueue.dashboard.read-only=false";
        }
        if (!securityPresent) {
            return "Dashboard actions need Spring Security: without it anyone who can reach " + path + " could act. "
                    + "Add spring-boot-starter-security and restrict " + path + "/** to an operator role "
                    + "(README, Dashboard); until then the dashboard stays read-only";
        }
        if (request.getUserPrincipal() == null) {
            return "Dashboard actions need a signed-in user: restrict " + path + "/** to an operator role with "
                    + "Spring Security, and sign in";
        }
        if (csrf(request) == null) {
            return "Dashboard actions need CSRF protection, which the security filter chain serving " + path
                    + " turned off: enable it for " + path + "/**";
        }
        return null;
    }

    /**
     * Lets the action through, logged with its user, or throws when this request may not act.
     * @throws ActionRefusedException saying why
     */
    void authorize(HttpServletRequest request, String action, String target) {
        String refusal = refusal(request);
        if (refusal != null) {
            logger.warn("pgqueue dashboard refused '" + action + "' on " + target + ": " + refusal);
            throw new ActionRefusedException(refusal);
        }
        logger.info("pgqueue dashboard: " + user(request) + " " + action + " " + target);
    }

    static @Nullable String user(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return (principal != null) ? principal.getName() : null;
    }

    /** The CSRF token Spring Security put on the request, or null without one. */
    @Nullable Csrf csrf(HttpServletRequest request) {
        return securityPresent ? SpringSecurityCsrf.read(request) : null;
    }

    /**
     * A CSRF token to send with actions.
     *
     * @param headerName the header that carries it
     * @param token its value
     */
    record Csrf(String headerName, String token) {
    }

    /** Touches Spring Security's types only when the application has them. */
    private static final class SpringSecurityCsrf {

        static @Nullable Csrf read(HttpServletRequest request) {
            return (request.getAttribute(CSRF_TOKEN_CLASS) instanceof CsrfToken token)
                    ? new Csrf(token.getHeaderName(), token.getToken()) : null;
        }
    }

    /** An action this request may not take. */
    static final class ActionRefusedException extends RuntimeException {

        ActionRefusedException(String message) {
            super(message);
        }
    }
}
