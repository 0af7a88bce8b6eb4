package io.pgqueue.sample;

import java.util.List;
import java.util.Map;

import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Shows an account's balance, so a person can watch readings being processed.
 */
@RestController
class AccountController {

    private final JdbcClient jdbc;

    AccountController(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @GetMapping("/accounts/{id}")
    ResponseEntity<Map<String, Object>> account(@PathVariable long id) {
        List<Map<String, Object>> rows = jdbc.sql("SELECT id, email, balance, kwh_total FROM account WHERE id = ?")
            .param(id)
            .query()
            .listOfRows();
        return rows.isEmpty() ? ResponseEntity.notFound().build() : ResponseEntity.ok(rows.get(0));
    }
}
