package io.pgqueue.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.Principal;
import java.util.Base64;

import io.pgqueue.admin.AdminAction;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.util.ClassUtils;

/**
 * Made by {@link io.pgqueue.dashboard.autoconfigure.PgQueueDashboardAutoConfiguration}; public for it alone, not an API.
 * <p>
 * Who may act through the dashboard. Reading is the application's security's business alone; acting also
 * needs, whatever that security says: the dashboard switched to read-write, Spring Security in the
 * application, a signed-in user, and CSRF protection on the request. Every action is logged with its user.
 */
public final class DashboardAccess {

    private static final Log logger = LogFactory.getLog(DashboardAccess.class);

    private static final String CSRF_TOKEN_CLASS = "org.springframework.security.web.csrf.CsrfToken";

    private final boolean readOnly;

    private final boolean securityPresent;

    private final String path;

    /** The role a user needs to act, or null for any signed-in user the application's security lets through. */
    private final @Nullable String operatorRole;

    public DashboardAccess(boolean readOnly, @Nullable ClassLoader classLoader, String path, @Nullable String operatorRole) {
        this.readOnly = readOnly;
        this.securityPresent = ClassUtils.isPresent(CSRF_TOKEN_CLASS, classLoader);
        this.path = path;
        this.operatorRole = operatorRole;
        if (!securityPresent) {
            logger.warn("The pgqueue dashboard at " + path + " is served without Spring Security: anyone who can reach "
                    + "this application can read its queues and jobs. Add spring-boot-starter-security and restrict "
                    + path + "/** to an operator role, or set pgqueue.dashboard.enabled=false");
        }
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
                    + "(docs/dashboard.md); until then the dashboard stays read-only";
        }
        if (request.getUserPrincipal() == null) {
            return "Dashboard actions need a signed-in user: restrict " + path + "/** to an operator role with "
                    + "Spring Security, and sign in";
        }
        if (operatorRole != null && !request.isUserInRole(operatorRole)) {
            return "Dashboard actions need the role " + operatorRole + " (pgqueue.dashboard.operator-role)";
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
        if (refusal == null && !SpringSecurityCsrf.sentValidToken(request)) {
            // checked here too: a filter chain that ignores CSRF for this path still sets the token attribute
            refusal = "Dashboard actions need the CSRF token of the dashboard's page in the request (header "
                    + csrf(request).headerName() + "); this request has none or a wrong one";
        }
        if (refusal != null) {
            AdminAction.refused("dashboard", user(request), action, target, refusal);
            throw new ActionRefusedException(refusal);
        }
        AdminAction.audit("dashboard", user(request), action, target, null);
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

        /**
         * Whether the request carries the session's CSRF token (in the header the page's script sends, or the
         * form parameter). Spring Security's default handler masks the token differently on every read, so
         * the values are compared once unmasked as well as they are.
         */
        static boolean sentValidToken(HttpServletRequest request) {
            if (!(request.getAttribute(CSRF_TOKEN_CLASS) instanceof CsrfToken token)) {
                return false;
            }
            String sent = request.getHeader(token.getHeaderName());
            if (sent == null || sent.isBlank()) {
                sent = request.getParameter(token.getParameterName());
            }
            if (sent == null || sent.isBlank()) {
                return false;
            }
            String expected = token.getToken();
            // either side may be masked or not, depending on the handler and on who read the token when
            for (byte[] sentForm : forms(sent)) {
                for (byte[] expectedForm : forms(expected)) {
                    if (MessageDigest.isEqual(sentForm, expectedForm)) {
                        return true;
                    }
                }
            }
            return false;
        }

        private static java.util.List<byte[]> forms(String token) {
            byte[] unmasked = unmask(token);
            return (unmasked != null) ? java.util.List.of(bytes(token), unmasked) : java.util.List.of(bytes(token));
        }

        private static byte[] bytes(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        /** A token masked as Spring Security's XOR handler masks it: URL-safe Base64 of random bytes, then those XOR the token. */
        private static byte @Nullable [] unmask(String masked) {
            byte[] combined;
            try {
                combined = Base64.getUrlDecoder().decode(masked);
            }
            catch (IllegalArgumentException ex) {
                return null;
            }
            if (combined.length == 0 || combined.length % 2 != 0) {
                return null;
            }
            int length = combined.length / 2;
            byte[] raw = new byte[length];
            for (int i = 0; i < length; i++) {
                raw[i] = (byte) (combined[i] ^ combined[length + i]);
            }
            return raw;
        }
    }

    /** An action this request may not take. */
    static final class ActionRefusedException extends RuntimeException {

        ActionRefusedException(String message) {
            super(message);
        }
    }
}
