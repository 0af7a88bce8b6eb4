package io.pgqueue.docs.snippets.dashboard;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

@Configuration(proxyBeanMethods = false)
class DashboardSecurity {

    // tag::security[]
    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests((requests) -> requests
                .requestMatchers("/pgqueue/**").hasRole("OPS")
                .anyRequest().authenticated())
            .formLogin(Customizer.withDefaults()); // CSRF protection is on by default: keep it for /pgqueue/**
        return http.build();
    }
    // end::security[]
}
