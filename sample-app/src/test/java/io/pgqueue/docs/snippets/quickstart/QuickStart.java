package io.pgqueue.docs.snippets.quickstart;

import io.pgqueue.QueueOperations;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.docs.snippets.Fixtures.Mailer;
import io.pgqueue.docs.snippets.Fixtures.User;
import io.pgqueue.docs.snippets.Fixtures.UserRepository;
import io.pgqueue.docs.snippets.Fixtures.WelcomeEmail;

import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// tag::send[]
@Service
class Signup {
    private final UserRepository users;
    private final QueueOperations queue;

    Signup(UserRepository users, QueueOperations queue) {
        this.users = users;
        this.queue = queue;
    }

    @Transactional // the job commits or rolls back with the user row
    void register(User user) {
        users.save(user);
        queue.send("emails", new WelcomeEmail(user.id()));
    }
}
// end::send[]

// tag::listen[]
@Component
class WelcomeMails {
    private final Mailer mailer;

    WelcomeMails(Mailer mailer) {
        this.mailer = mailer;
    }

    @QueueListener(queue = "emails") // runs on any node; throw to retry with backoff
    void send(WelcomeEmail email) {
        mailer.send(email.userId(), "Welcome!");
    }
}
// end::listen[]
