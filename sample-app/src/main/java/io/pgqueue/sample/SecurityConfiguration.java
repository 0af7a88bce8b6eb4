package io.pgqueue.sample;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;

/**
 * The sample's API and read-only actuator endpoints are open; changing queues through the pgqueue endpoint
 * (pause, resume, retry, purge) needs an operator (HTTP Basic, role OPS), and so does the dashboard at
 * /pgqueue (a login form). The JSON API is stateless, with no browser session to ride on, so it does not use
 * CSRF tokens; the dashboard and its login form are browser pages with a session, so they do.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class SecurityConfiguration {

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
        PathPatternRequestMatcher.Builder paths = PathPatternRequestMatcher.withDefaults();
        http.authorizeHttpRequests((requests) -> requests
            .requestMatchers("/pgqueue/**").hasRole("OPS")
            .requestMatchers(HttpMethod.POST, "/actuator/pgqueue/**").hasRole("OPS")
            .requestMatchers(EndpointRequest.toAnyEndpoint()).permitAll()
            .anyRequest().permitAll())
            .httpBasic(Customizer.withDefaults())
            .formLogin(Customizer.withDefaults())
            .csrf((csrf) -> csrf.requireCsrfProtectionMatcher(new OrRequestMatcher(
                    paths.matcher(HttpMethod.POST, "/pgqueue/**"), paths.matcher(HttpMethod.POST, "/login"))));
        return http.build();
    }
}
