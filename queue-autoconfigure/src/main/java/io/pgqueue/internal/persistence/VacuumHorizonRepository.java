package io.pgqueue.internal.persistence;

import java.util.Optional;

import io.pgqueue.model.VacuumHold;

/** What holds back the vacuum horizon of pgqueue's database, read from the server's statistics views. */
public interface VacuumHorizonRepository {

    /**
     * The hold whose horizon is oldest, if any (other than pgqueue's own statement), with the transaction id it
     * holds the horizon at.
     */
    Optional<Held> oldest();

    /**
     * A hold and the horizon it keeps.
     *
     * @param hold the hold, its {@code since} the transaction's start when known, or now
     * @param horizon the transaction id it holds the horizon at, to recognise the same hold on the next look
     * @param startKnown whether {@code since} is the transaction's start rather than now
     */
    record Held(VacuumHold hold, String horizon, boolean startKnown) {
    }
}
