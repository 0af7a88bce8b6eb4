package io.pgqueue.docs.snippets.consuming;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.pgqueue.QueueOperations;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.docs.snippets.Fixtures.Bill;
import io.pgqueue.docs.snippets.Fixtures.Chunk;
import io.pgqueue.docs.snippets.Fixtures.ExportRequest;
import io.pgqueue.docs.snippets.Fixtures.ExportRow;
import io.pgqueue.docs.snippets.Fixtures.Mailer;
import io.pgqueue.docs.snippets.Fixtures.MeterReading;
import io.pgqueue.docs.snippets.Fixtures.PartnerApi;
import io.pgqueue.docs.snippets.Fixtures.Receipt;
import io.pgqueue.listener.JobContext;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

// tag::listeners[]
@Component
class Billing {

    private final Mailer mailer;

    private final JdbcClient jdbc;

    Billing(Mailer mailer, JdbcClient jdbc) {
        this.mailer = mailer;
        this.jdbc = jdbc;
    }

    @QueueListener(queue = "bills") // LEASE delivery by default
    void send(Bill bill, JobContext job) {
        mailer.send(bill); // throw to retry with backoff
    }

    @QueueListener(queue = "readings", mode = "TRANSACTIONAL", concurrency = "${app.reading-workers:4}")
    void record(MeterReading reading) { // its writes commit with the acknowledgement
        jdbc.sql("UPDATE account SET kwh_total = kwh_total + ? WHERE id = ?")
            .params(reading.kwh(), reading.accountId())
            .update();
    }

    @QueueListener(queue = "exports", batchSize = "100")
    void export(List<ExportRow> rows) { // a batch listener gets a whole claim at once
        rows.forEach((row) -> mailer.send(row.id(), row.line()));
    }
}
// end::listeners[]

class Exports {

    private final PartnerApi partnerApi;

    Exports(PartnerApi partnerApi) {
        this.partnerApi = partnerApi;
    }

    // tag::control[]
    @QueueListener(queue = "exports", timeout = "10m") // or pgqueue.queues.exports.timeout, pgqueue.listener.timeout
    Receipt export(ExportRequest request, JobContext job) {
        if (!partnerApi.isUp()) {
            job.snooze(Duration.ofMinutes(5)); // or: throw new SnoozeException(Duration.ofMinutes(5))
            return null;
        }
        for (Chunk chunk : request.chunks()) {
            job.checkCancelled();
            partnerApi.write(chunk);
            job.progress(chunk.percent(), "wrote " + chunk.name());
        }
        return new Receipt(request.id(), request.chunks().size()); // kept as the job's output
    }
    // end::control[]

    Optional<Receipt> receipt(QueueOperations queueTemplate, long jobId) {
        // tag::output[]
        Optional<Receipt> receipt = queueTemplate.output(jobId, Receipt.class);
        // end::output[]
        return receipt;
    }
}
