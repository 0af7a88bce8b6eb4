package io.pgqueue.docs.snippets.databases;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.autoconfigure.PgQueueDataSources;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

record Report(long id, String body) {
}

// tag::transactional-handler[]
@Component
class ReportWriter {

    private final JdbcTemplate reporting;

    ReportWriter(PgQueueDataSources dataSources) {
        // the DataSource of the database queue 'reports' lives in: the claim's transaction runs on it
        this.reporting = new JdbcTemplate(dataSources.forQueue("reports"));
    }

    @QueueListener(queue = "reports", mode = "TRANSACTIONAL")
    void write(Report report) {
        reporting.update("INSERT INTO report (id, body) VALUES (?, ?)", report.id(), report.body());
    }
}
// end::transactional-handler[]
