package io.pgqueue.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.util.StreamUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.util.HtmlUtils;

/**
 * Made by {@link io.pgqueue.dashboard.autoconfigure.PgQueueDashboardAutoConfiguration}; public for it alone, not an API.
 * <p>
 * The dashboard's one HTML page. Its scripts and styles are files of this jar (no CDN: operators run
 * air-gapped); what the page needs to know (where its API is, whether this user may act, the CSRF token) is
 * put in {@code <meta>} tags, so that no inline script is needed and a strict Content-Security-Policy holds.
 */
@Controller
public class DashboardPageController {

    private static final String TEMPLATE = "io/pgqueue/dashboard/index.html";

    /** Only this jar's own files; no inline code, no framing by other sites. */
    private static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; frame-ancestors 'self'; form-action 'self'; base-uri 'none'";

    private final String template;

    private final String path;

    private final DashboardAccess access;

    private final long refreshMillis;

    private final boolean showPayloads;

    public DashboardPageController(String path, DashboardAccess access, long refreshMillis, boolean showPayloads) {
        this.path = path;
        this.access = access;
        this.refreshMillis = refreshMillis;
        this.showPayloads = showPayloads;
        try {
            this.template = StreamUtils.copyToString(new ClassPathResource(TEMPLATE).getInputStream(),
                    StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("The dashboard's page is missing from the classpath: " + TEMPLATE, ex);
        }
    }

    @GetMapping({ "${pgqueue.dashboard.path:/pgqueue}", "${pgqueue.dashboard.path:/pgqueue}/" })
    ResponseEntity<String> page(HttpServletRequest request) {
        Map<String, @Nullable String> values = new LinkedHashMap<>();
        values.put("base", request.getContextPath() + path);
        values.put("refresh", Long.toString(refreshMillis));
        values.put("masked", Boolean.toString(!showPayloads));
        String refusal = access.refusal(request);
        values.put("writable", Boolean.toString(refusal == null));
        values.put("refusal", refusal);
        values.put("user", DashboardAccess.user(request));
        DashboardAccess.Csrf csrf = access.csrf(request);
        values.put("csrfHeader", (csrf != null) ? csrf.headerName() : null);
        values.put("csrfToken", (csrf != null) ? csrf.token() : null);
        String page = template;
        for (Map.Entry<String, @Nullable String> value : values.entrySet()) {
            String text = (value.getValue() != null) ? value.getValue() : "";
            page = page.replace("{{" + value.getKey() + "}}", HtmlUtils.htmlEscape(text, "UTF-8"));
        }
        return ResponseEntity.ok()
            .contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
            .cacheControl(CacheControl.noStore())
            .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            .header("X-Content-Type-Options", "nosniff")
            .header("Referrer-Policy", "same-origin")
            .body(page);
    }
}
