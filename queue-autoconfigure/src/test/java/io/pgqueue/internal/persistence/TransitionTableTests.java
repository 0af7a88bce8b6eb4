package io.pgqueue.internal.persistence;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgqueue.model.JobState;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Every statement that can change a job's state is declared in the transition table and carries the counter
 * deltas generated from it; the deltas of each transition follow from its from- and to-states. (That the
 * declared states are the ones the statements really produce is checked on a real database by
 * CounterConsistencyTests, through a trigger.)
 */
class TransitionTableTests {

    /**
     * A write of the job table: an insert (with or without an alias: the debounce upsert is {@code INSERT INTO
     * job AS j}), a delete, or an update whose SET clause is group 2.
     */
    private static final Pattern WRITES_JOB = Pattern
        .compile("(INSERT INTO \"pgqueue\"\\.job\\b(?!_)|DELETE FROM \"pgqueue\"\\.job\\b(?!_)|UPDATE \"pgqueue\"\\.job\\b(?!_)[^;]*?\\bSET\\b(.*?)\\bWHERE\\b)",
                Pattern.DOTALL);

    private static final Pattern TAG = Pattern.compile("/\\* pgqueue:([a-z_]+) \\*/");

    private final Repositories repositories = new Repositories(new SimpleDriverDataSource(), new Schema("pgqueue"),
            "pgqueue_schema_history", true, true, java.time.Duration.ZERO);

    @Test
    void everyStatementThatChangesAJobsStateIsATransitionWithItsGeneratedDeltas() {
        generatePageStatements();
        List<String> checked = new ArrayList<>();
        for (Sql sql : repositories.jobTableStatements()) {
            for (String named : sql.jdbcSql().split(";\n")) {
                // each statement of the round trip starts with its name: what follows is the statement as composed
                String statement = named.substring(named.indexOf(" */\n") + 4);
                if (!changesState(statement)) {
                    continue;
                }
                Matcher tag = TAG.matcher(statement);
                assertThat(tag.find()).as("transition tag of %s", statement).isTrue();
                // each CTE that changes job.state is one declared transition: two writes under one tag would
                // leave one of them undeclared
                assertThat(stateChangingWrites(statement)).as("writes of job.state in %s", statement)
                    .isLessThanOrEqualTo(TAG.matcher(statement).results().count());
                // every tag of the statement (each CTE that changes job.state has one): its deltas, guards and
                // cascades are all there
                for (String name : TAG.matcher(statement).results().map((t) -> t.group(1)).toList()) {
                    Transition transition = Transition.valueOf(name.toUpperCase(java.util.Locale.ROOT));
                    String deltas = text(new Counters(true).delta(transition, "changed", Counters.Rows.MANY))
                        .replace("FROM changed", "");
                    int insert = deltas.indexOf("INSERT INTO");
                    String insertIntoDeltas = deltas.substring(insert, deltas.indexOf("SELECT", insert));
                    assertThat(statement).as("deltas of %s in %s", transition, statement)
                        .contains(insertIntoDeltas.replace("{schema}", "\"pgqueue\""));
                    String flat = statement.replaceAll("\\s+", " ");
                    for (Transition.Guard guard : transition.guards()) {
                        assertThat(List.of("", "j", "r")).as("guard %s of %s in %s", guard, transition, statement)
                            .anyMatch((alias) -> flat.contains(jdbc(alias.isEmpty() ? guard.sql() : guard.sql(alias))));
                    }
                    if (transition.cascades().contains(Transition.Cascade.HISTORY)) {
                        assertThat(statement).as("history copy of %s in %s", transition, statement)
                            .contains("INSERT INTO \"pgqueue\".job_history");
                    }
                    if (transition.cascades().contains(Transition.Cascade.HISTORY_REMOVAL)) {
                        assertThat(statement).as("history removal of %s in %s", transition, statement)
                            .contains("DELETE FROM \"pgqueue\".job_history");
                    }
                    if (transition.cascades().contains(Transition.Cascade.WORKFLOW)) {
                        // the cascade's transitive cancellation reads itself: a statement with it is recursive
                        // (the light cascade of completed nodes has none)
                        assertThat(statement).as("workflow cascade of %s in %s", transition, statement)
                            .startsWith(transition.tag() + (statement.contains("wf_doomed") ? "WITH RECURSIVE" : "WITH"))
                            .contains("DELETE FROM \"pgqueue\".job_dependency")
                            .contains("INSERT INTO \"pgqueue\".workflow_counter_delta")
                            .contains("ARRAY(SELECT queue FROM wf_woken) AS wf_woken");
                    }
                    if (transition.cascades().contains(Transition.Cascade.BATCH)) {
                        assertThat(statement).as("batch cascade of %s in %s", transition, statement)
                            .contains("UPDATE \"pgqueue\".batch_slot s")
                            .contains("INSERT INTO \"pgqueue\".batch_counter_delta")
                            .contains("UPDATE \"pgqueue\".batch_callback k")
                            .contains("ARRAY(SELECT queue FROM b_woken) AS b_woken");
                    }
                    if (transition.cascades().contains(Transition.Cascade.WORKFLOW_GRAPH)) {
                        assertThat(statement).as("workflow graph of %s in %s", transition, statement)
                            .contains("INSERT INTO \"pgqueue\".workflow_node")
                            .contains("INSERT INTO \"pgqueue\".job_dependency")
                            .contains("INSERT INTO \"pgqueue\".workflow_counter_delta");
                    }
                    if (transition.cascades().contains(Transition.Cascade.FAIRNESS)) {
                        assertThat(statement).as("fairness cascade of %s in %s", transition, statement)
                            .contains("FOR KEY SHARE OF k")
                            .contains("INSERT INTO \"pgqueue\".fair_key");
                    }
                    if (transition.cascades().contains(Transition.Cascade.DEDUP_WINDOW_RELEASE)) {
                        assertThat(statement).as("dedup window release of %s in %s", transition, statement)
                            .contains("DELETE FROM \"pgqueue\".dedup_window");
                    }
                    checked.add(transition.name());
                }
            }
        }
        assertThat(checked).as("state-changing statements found").hasSizeGreaterThanOrEqualTo(Transition.values().length);
        for (Transition transition : Transition.values()) {
            assertThat(checked).as("statements of " + transition).contains(transition.name());
        }
    }

    @Test
    void theCheckSeesEveryKindOfWriteOfTheJobTable() {
        assertThat(changesState("INSERT INTO \"pgqueue\".job AS j (queue, state) VALUES ('q', 'scheduled')")).isTrue();
        assertThat(changesState("INSERT INTO \"pgqueue\".job (queue, state) VALUES ('q', 'ready')")).isTrue();
        assertThat(changesState("DELETE FROM \"pgqueue\".job j WHERE id = 1")).isTrue();
        assertThat(changesState("UPDATE \"pgqueue\".job SET state = 'ready' WHERE id = 1")).isTrue();
        assertThat(changesState("UPDATE \"pgqueue\".job SET lease_until = now() WHERE id = 1")).isFalse();
        assertThat(changesState("INSERT INTO \"pgqueue\".job_history (id) VALUES (1)")).isFalse();
        assertThat(stateChangingWrites("""
                WITH a AS (UPDATE "pgqueue".job SET state = 'ready' WHERE id = 1 RETURNING id),
                     b AS (DELETE FROM "pgqueue".job WHERE id = 2 RETURNING id)
                SELECT 1""")).isEqualTo(2);
    }

    @Test
    void statementsThatOnlyRenewLeasesOrReadAreNotTransitions() {
        long untagged = repositories.jobTableStatements().stream()
            .map(Sql::jdbcSql)
            .filter((sql) -> !TAG.matcher(sql).find())
            .peek((sql) -> assertThat(changesState(sql)).as("untagged statement changes state: %s", sql).isFalse())
            .count();
        assertThat(untagged).isPositive();
    }

    @Test
    void guardsAreWrittenOnceAndQualifiedByAlias() {
        assertThat(Transition.FAIL.guard("")).isEqualTo(
                "attempts = :attempt AND state = 'running' AND locked_by = :node AND NOT cancel_requested");
        assertThat(Transition.COMPLETE.guard("j")).isEqualTo("j.locked_by = :node AND ((j.id, j.attempts) IN "
                + "(SELECT * FROM unnest(:ids::bigint[], :attempts::int[]))) IS TRUE");
        assertThat(Transition.FAIL_AFTER_ROLLBACK.guard("j"))
            .isEqualTo("j.attempts = :attempt - 1 AND j.state = 'ready' AND j.locked_by IS NULL");
        assertThat(Transition.PROMOTE.guards()).isEmpty();
        // a statement of a guarded transition without its guard fails the check above: the guard is what the
        // late acknowledgement of a rescued job would otherwise get past
        assertThat("UPDATE \"pgqueue\".job SET state = 'ready' WHERE id = :id")
            .doesNotContain(Transition.FAIL.guards().get(0).sql());
    }

    @Test
    void deltasFollowFromTheTable() {
        Counters counters = new Counters(true);
        assertThat(text(counters.delta(Transition.CLAIM_LEASE, "claimed", Counters.Rows.MANY)))
            .contains("(queue, ready, running)")
            .contains("SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue");
        assertThat(text(counters.delta(Transition.FAIL_AFTER_ROLLBACK, "failed", Counters.Rows.MANY)))
            .contains("(queue, scheduled, ready, dead, failed, dead_lettered)")
            .contains("count(*) FILTER (WHERE state = 'ready') - count(*)");
        assertThat(text(counters.delta(Transition.ENQUEUE, "inserted", Counters.Rows.ONE)))
            .contains("(queue, scheduled, ready, enqueued)")
            .contains("SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted")
            .doesNotContain("GROUP BY");
        assertThat(text(counters.delta(Transition.PURGE, "deleted", Counters.Rows.MANY)))
            .contains("(queue, dead)")
            .contains("SELECT queue, -count(*) FROM deleted");
        assertThat(text(counters.delta(Transition.COMPLETE, "done", Counters.Rows.MANY)))
            .contains("(queue, running, completed, cancelled)")
            .contains("SELECT queue, -count(*), count(*) FILTER (WHERE state = 'completed'), "
                    + "count(*) FILTER (WHERE state = 'cancelled') FROM done");
        assertThat(text(counters.delta(Transition.CANCEL, "cancelled", Counters.Rows.MANY)))
            .contains("(queue, waiting, scheduled, ready, cancelled)")
            .contains("SELECT queue, -count(*) FILTER (WHERE from_state = 'waiting'), "
                    + "-count(*) FILTER (WHERE from_state = 'scheduled'), "
                    + "-count(*) FILTER (WHERE from_state = 'ready'), count(*) FROM cancelled");
        assertThat(text(counters.delta(Transition.UNBLOCK, "wf_released", Counters.Rows.MANY)))
            .contains("(queue, waiting, scheduled, ready)")
            .contains("SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), "
                    + "count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') "
                    + "FROM wf_released");
        // an undoing transition takes its transition's deltas back
        assertThat(text(counters.delta(Transition.CLAIM_RESTORE, "restored", Counters.Rows.MANY)))
            .contains("(queue, ready, completed)")
            .contains("SELECT queue, -(-count(*)), -(count(*)) FROM restored GROUP BY queue");
        assertThat(new Counters(false).delta(Transition.COMPLETE, "done", Counters.Rows.MANY).isEmpty()).isTrue();
    }

    @Test
    void everyTransitionMovesJobsBetweenDifferentPlacesOrCountsSomething() {
        for (Transition transition : Transition.values()) {
            assertThat(!transition.from().isEmpty() || !transition.to().isEmpty()).as(transition.name()).isTrue();
            Transition undone = transition.undoes();
            if (undone == null) {
                assertThat(transition.from()).as(transition.name()).noneMatch(JobState::isFinished);
            }
            else {
                // only a transition undone within its own transaction is left from a finished state: exactly back
                assertThat(transition.from()).as(transition.name()).isEqualTo(undone.to());
                assertThat(transition.to()).as(transition.name()).isEqualTo(undone.from());
                assertThat(transition.totals()).as(transition.name()).isEqualTo(undone.totals());
            }
            assertThat(transition.to()).as(transition.name()).allSatisfy((state) -> assertThat(state).isIn(JobState.all()));
        }
    }

    @Test
    void namedParametersBindAtEveryPlaceAndLeaveCastsAndLiteralsAlone() {
        Sql sql = Sql.parse("SELECT :a::text, ':not_a_parameter', \":quoted\", :b, :a -- :comment\n/* :also */");
        assertThat(sql.jdbcSql()).isEqualTo("SELECT ?::text, ':not_a_parameter', \":quoted\", ?, ? -- :comment\n/* :also */");
        assertThat(sql.positions("a")).containsExactly(1, 3);
        assertThat(sql.positions("b")).containsExactly(2);
        assertThatIllegalArgumentException().isThrownBy(() -> sql.positions("c")).withMessageContaining(":c");
        assertThatIllegalArgumentException().isThrownBy(() -> Sql.parse("SELECT ?"));
    }

    @Test
    void theSchemaIsNamedInTheSameParseAndOnlyByStatementsSchemaMakes() {
        Sql sql = Sql.parse("SELECT nextval(pg_get_serial_sequence('{schema}.job', 'id')), :a FROM {schema}.job "
                + "/* {schema} */ WHERE \"{schema}\" IS NULL", "\"jobs_2\"");
        assertThat(sql.jdbcSql()).isEqualTo("SELECT nextval(pg_get_serial_sequence('\"jobs_2\".job', 'id')), ? FROM "
                + "\"jobs_2\".job /* {schema} */ WHERE \"{schema}\" IS NULL");
        assertThat(sql.text()).isEqualTo("SELECT nextval(pg_get_serial_sequence('\"jobs_2\".job', 'id')), :a FROM "
                + "\"jobs_2\".job /* {schema} */ WHERE \"{schema}\" IS NULL");
        // a statement made without the schema cannot name it: it would run against a table of that name elsewhere
        assertThatIllegalArgumentException().isThrownBy(() -> Sql.parse("SELECT 1 FROM {schema}.job"))
            .withMessageStartingWith("A statement that names pgqueue's schema must be made by Schema");
        assertThat(new Schema("jobs_2").sql("lookup.example", "SELECT id FROM {schema}.job WHERE id = :id").jdbcSql())
            .isEqualTo("/* pgqueue:lookup.example */\nSELECT id FROM \"jobs_2\".job WHERE id = ?");
    }

    /** A fragment as the statements read once parsed: schema qualified, named parameters as {@code ?}. */
    private static String jdbc(String fragment) {
        return fragment.replace("{schema}", "\"pgqueue\"").replaceAll("(?<!:):[a-z_]+", "?");
    }

    private static boolean changesState(String statement) {
        return stateChangingWrites(statement) > 0;
    }

    private static long stateChangingWrites(String statement) {
        Matcher matcher = WRITES_JOB.matcher(statement);
        long writes = 0;
        while (matcher.find()) {
            String set = matcher.group(2);
            if (set == null || Pattern.compile("\\bstate\\s*=").matcher(set).find()) {
                writes++;
            }
        }
        return writes;
    }

    /** Makes the lazily generated page statements exist, so that the check sees them too. */
    private void generatePageStatements() {
        io.pgqueue.model.JobQuery query = io.pgqueue.model.JobQuery.queue("q").groupKey("g").build();
        try {
            repositories.admin().jobs(query);
        }
        catch (RuntimeException expected) {
            // no database behind this DataSource: the statement was generated before the call failed
        }
    }

    /** A part's steps as the text a statement that takes them shows. */
    private static String text(Steps steps) {
        return steps.select("SELECT 1");
    }
}
