package io.pgqueue.docs.snippets.testing;

import java.time.Duration;

import io.pgqueue.docs.snippets.Fixtures.Mailer;
import io.pgqueue.docs.snippets.Fixtures.User;
import io.pgqueue.test.QueueTestSupport;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

interface Signup {

    void register(User user);
}

// tag::test[]
@SpringBootTest
class SignupTests {

    @Autowired
    ApplicationContext context;

    @Autowired
    Signup signup;

    @Autowired
    Mailer mailer;

    @Test
    void welcomeEmailIsSent() {
        signup.register(new User("a@example.com"));
        QueueTestSupport.of(context).awaitDrained("emails", Duration.ofSeconds(10));
        assertThat(mailer.sent()).hasSize(1);
    }
}
// end::test[]
