package io.pgqueue.docs.snippets.batches;

import java.util.List;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchEvent;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.model.BatchInfo;

import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

record CustomerRow(long line, String csv) {
}

interface Uploads {

    List<CustomerRow> page(String file, int page);

    void markImported(String file);

    void alertOperator(String file, long batchId);
}

// tag::import-open[]
@Service
class CustomerImport {

    private final BatchOperations batches;

    CustomerImport(BatchOperations batches) {
        this.batches = batches;
    }

    @Transactional // roll back, and neither the batch nor a row of it exists
    long start(String file, List<CustomerRow> rows) {
        long batchId = batches.open(Batch.builder("import " + file)
            .property("file", file)                              // handed to every callback
            .onSuccess("import-done")                            // every row imported
            .onCannotSucceed("import-alerts", SendOptions.builder().priority(10).build())
            .build());
        batches.addAll(batchId, "import-rows", rows);           // ordinary jobs: LEASE or TRANSACTIONAL
        batches.seal(batchId);                                  // no callback fires before this
        return batchId;
    }
}
// end::import-open[]

// tag::import-callbacks[]
@Component // a listener is found only on a Spring bean
class ImportSteps {

    private final Uploads uploads;

    ImportSteps(Uploads uploads) {
        this.uploads = uploads;
    }

    @QueueListener(queue = "import-rows", mode = "TRANSACTIONAL")
    void importRow(CustomerRow row) {
        // write the customer; a row that fails its attempts ends dead
    }

    @QueueListener(queue = "import-done")
    void imported(BatchEvent event) {                            // once, after the last row's transaction
        uploads.markImported(event.properties().get("file"));
    }

    @QueueListener(queue = "import-alerts")
    void cannotSucceed(BatchEvent event) {                       // once, at the first dead or cancelled row
        uploads.alertOperator(event.properties().get("file"), event.batchId());
    }
}
// end::import-callbacks[]

// tag::import-paged[]
@Component
class PagedImport {

    private final BatchOperations batches;

    private final QueueTemplate template;

    private final Uploads uploads;

    PagedImport(BatchOperations batches, QueueTemplate template, Uploads uploads) {
        this.batches = batches;
        this.template = template;
        this.uploads = uploads;
    }

    record Page(long batchId, String file, int page) {
    }

    /** One page per job: adds its rows and the job for the next page, or seals the batch after the last. */
    @QueueListener(queue = "import-pages", mode = "TRANSACTIONAL")
    void page(Page page) {
        List<CustomerRow> rows = uploads.page(page.file(), page.page());
        if (rows.isEmpty()) {
            batches.seal(page.batchId());
            return;
        }
        batches.addAll(page.batchId(), "import-rows", rows);
        template.send("import-pages", new Page(page.batchId(), page.file(), page.page() + 1));
    }
}
// end::import-paged[]

class Batches {

    // tag::import-progress[]
    static String progress(QueueAdmin admin, long batchId) {
        BatchInfo batch = admin.batch(batchId).orElseThrow();
        return batch.name() + ": " + batch.state() + ", " + batch.counts().finished() + " of "
                + batch.counts().total() + " rows finished (" + batch.counts().dead() + " dead)";
    }
    // end::import-progress[]
}
