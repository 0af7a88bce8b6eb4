package io.pgqueue.docs.snippets.fairness;

import java.util.List;

import io.pgqueue.JobRequest;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.model.FairnessKeyInfo;

import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

record Row(String tenant, long line, String csv) {
}

interface Customers {

    void upsert(Row row);
}

// tag::send[]
@Service
class Imports {

    private final QueueTemplate queues;

    Imports(QueueTemplate queues) {
        this.queues = queues;
    }

    @Transactional
    void importFile(String tenant, List<Row> rows) {
        // tag::tenant-send[]
        SendOptions ofTenant = SendOptions.builder().fairnessKey(tenant).build(); // charged to the tenant
        queues.sendBatch("imports", rows.stream().map((row) -> JobRequest.of(row, ofTenant)).toList());
        // end::tenant-send[]
    }
}

@Component // a listener is found only on a Spring bean
class ImportRows {

    private final Customers customers;

    ImportRows(Customers customers) {
        this.customers = customers;
    }

    @QueueListener(queue = "imports", concurrency = "16")
    void importRow(Row row) {            // a tenant with a million rows no longer holds up the others
        customers.upsert(row);
    }
}
// end::send[]

class Fairness {

    // tag::admin[]
    static void operate(QueueAdmin admin) {
        admin.setFairnessWeight("imports", "tenant-42", 5);   // cluster-wide, kept across restarts
        admin.pauseFairnessKey("imports", "tenant-7");        // the other tenants keep running
        for (FairnessKeyInfo key : admin.fairnessKeys("imports", 20)) {
            System.out.println(key.key() + ": " + key.ready() + " ready, " + key.running() + " running");
        }
        admin.resumeFairnessKey("imports", "tenant-7");
        admin.clearFairnessWeight("imports", "tenant-42");    // the configured weight applies again
    }
    // end::admin[]
}
