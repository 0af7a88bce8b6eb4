package io.pgqueue.internal.admin;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;

/** Counts per state as a gauge wants them: every state of the enum present, zero where the database has none. */
final class CountsByState {

    private CountsByState() {
    }

    static <S extends Enum<S>> Map<S, Long> of(Class<S> states, Map<String, Long> stored, Function<String, S> state) {
        Map<S, Long> counts = new EnumMap<>(states);
        for (S each : states.getEnumConstants()) {
            counts.put(each, 0L);
        }
        stored.forEach((name, count) -> counts.put(state.apply(name), count));
        return counts;
    }
}
