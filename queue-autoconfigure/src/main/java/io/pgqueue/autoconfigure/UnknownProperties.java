package io.pgqueue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;

import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The {@code pgqueue.*} keys of the application's configuration that no setting of pgqueue reads: a misspelt
 * property ({@code pgqueue.listner.concurrency}, {@code pgqueue.queues.audit.max-attemps}) would otherwise start
 * the application as if it were not there. pgqueue owns its prefix: each such key is named with where it was set
 * and the closest property that exists.
 *
 * <p>Only the application's own configuration is read (files, command-line arguments, test properties):
 * environment variables and JVM system properties are left out, since other tools use names that map to the same
 * prefix ({@code PGQUEUE_TEST_JDBC_URL}). {@code pgqueue.dashboard.*} belongs to the dashboard module.
 */
final class UnknownProperties {

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("pgqueue");

    private static final ConfigurationPropertyName DASHBOARD = ConfigurationPropertyName.of("pgqueue.dashboard");

    /** Boot's adapter of the whole environment, which repeats every other source. */
    private static final String ATTACHED = "configurationProperties";

    private static final Pattern METADATA_NAME = Pattern.compile("\"name\"\\s*:\\s*\"(pgqueue\\.[^\"]+)\"");

    private UnknownProperties() {
    }

    /**
     * Each unknown key under {@code pgqueue}, with where it was set and the closest known property.
     *
     * @param properties the class the keys bind to
     */
    static List<String> find(ConfigurableEnvironment environment, Class<?> properties) {
        List<PropertySource<?>> own = new ArrayList<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            String name = source.getName();
            if (!name.equals(ATTACHED) && !name.equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)
                    && !name.equals(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)) {
                own.add(source);
            }
        }
        List<ConfigurationPropertySource> sources = new ArrayList<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.from(own)) {
            sources.add(source.filter((name) -> !DASHBOARD.equals(name) && !DASHBOARD.isAncestorOf(name)));
        }
        try {
            new Binder(sources).bind(ROOT, Bindable.of(properties), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
            return List.of();
        }
        catch (BindException ex) {
            if (!(ex.getCause() instanceof UnboundConfigurationPropertiesException unbound)) {
                // an invalid value: Boot's own binding of the properties reports it, naming the property
                return List.of();
            }
            Set<String> known = knownNames();
            List<String> found = new ArrayList<>();
            for (ConfigurationProperty property : unbound.getUnboundProperties()) {
                String key = property.getName().toString();
                String origin = (property.getOrigin() != null) ? " (" + property.getOrigin() + ")" : "";
                String closest = closest(key, known);
                found.add("'" + key + "'" + origin + ((closest != null) ? ": did you mean '" + closest + "'?" : ""));
            }
            return found;
        }
    }

    /** The properties pgqueue's configuration metadata lists. */
    private static Set<String> knownNames() {
        Set<String> names = new TreeSet<>();
        try {
            Enumeration<URL> files = UnknownProperties.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json");
            while (files.hasMoreElements()) {
                try (InputStream in = files.nextElement().openStream()) {
                    Matcher name = METADATA_NAME.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    while (name.find()) {
                        names.add(name.group(1));
                    }
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return names;
    }

    /**
     * The known property closest to {@code key}: the nearest whole name, or the key with its last part replaced by
     * the nearest setting (for a key inside a map, such as {@code pgqueue.queues.audit.max-attemps}), whichever
     * is nearer; null when nothing is near.
     */
    static String closest(String key, Set<String> known) {
        int dot = key.lastIndexOf('.');
        String leaf = key.substring(dot + 1);
        String prefix = key.substring(0, dot + 1);
        List<String> candidates = new ArrayList<>(known);
        for (String name : known) {
            candidates.add(prefix + name.substring(name.lastIndexOf('.') + 1));
        }
        String best = candidates.stream().filter((candidate) -> !candidate.equals(key))
            .min(Comparator.comparingInt((String candidate) -> distance(key, candidate)).thenComparing((c) -> c))
            .orElse(null);
        return (best != null && distance(key, best) <= Math.max(2, leaf.length() / 3)) ? best : null;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
