package io.pgqueue.docs.snippets;

import java.util.List;

/**
 * The application types the guides' snippets use (users, mails, bills...), so that the snippets compile as
 * the reader sees them.
 */
public final class Fixtures {

    private Fixtures() {
    }

    public record User(long id, String email) {

        public User(String email) {
            this(0, email);
        }
    }

    public interface UserRepository {

        User save(User user);
    }

    public record WelcomeEmail(long userId) {
    }

    public interface Mailer {

        void send(long userId, String text);

        void send(Bill bill);

        List<Object> sent();
    }

    public record Bill(long accountId, double amount) {
    }

    public record MeterReading(long accountId, double kwh) {
    }

    public record ExportRow(long id, String line) {
    }

    public record ExportRequest(long id, List<Chunk> chunks) {
    }

    public record Chunk(String name, int percent) {
    }

    public record Receipt(long requestId, int chunks) {
    }

    public interface PartnerApi {

        boolean isUp();

        void write(Chunk chunk);
    }
}
