package io.pgqueue.sample;

import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The sample's API and read-only actuator endpoints are open; changing queues through the pgqueue endpoint
 * (pause, resume, retry, purge) needs an operator (HTTP Basic, role OPS). The JSON API is stateless, with no
 * browser session to ride on, so it does not use CSRF tokens.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class SecurityConfiguration {

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests((requests) -> requests
            .requestMatchers(HttpMethod.POST, "/actuator/pgqueue/**").hasRole("OPS")
            .requestMatchers(EndpointRequest.toAnyEndpoint()).permitAll()
            .anyRequest().permitAll())
            .httpBasic(Customizer.withDefaults())
            .csrf((csrf) -> csrf.disable());
        return http.build();
    }
}
