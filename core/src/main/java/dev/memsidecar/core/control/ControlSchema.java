package dev.memsidecar.core.control;

import dev.memsidecar.jdbc.VersionedSchema;
import java.time.Instant;
import java.util.List;

/**
 * The control store's tables and their version.
 *
 * <p>Versioned with Flyway ({@link #SCHEMA}): the scripts {@code
 * db/migration/control/<dialect>/V<n>__*.sql} (resources of this module), the history in {@code
 * control_schema_history}. Versions: 1 (issue 7) has the run and audit tables; 2 (issue 8) adds the
 * tool tables; 3 (issue 17) adds the session tables; 4 indexes a message's context (the message
 * before it) too; 5 (issue 18) adds run receipts, tasks and skill effects; 6 (issue 18) adds the
 * maintenance runs and an index of the audit by time; 7 (issue 18) adds skill candidates, their
 * evidence and approvals, and published skill versions; 8 (issue 20) adds the maintenance lease
 * that several sidecars on one database take turns under, and the version of each workspace's tool
 * rules; 9 ({@link SessionTermsByTerm}, in Java) puts every column a session search reads into an
 * index of the session terms by term; 10 writes a message's session terms behind its append ({@code
 * session_unindexed}). Releases before Flyway kept the version in {@code control_schema} (one row);
 * such a database is taken over at that version and migrated, and the table keeps the current
 * version so those releases refuse a newer database. Opening creates or migrates the tables; a
 * database of a later release is refused rather than misread ({@link
 * dev.memsidecar.jdbc.Database#open}).
 *
 * <p>Ids are text of any length. Times are epoch nanoseconds in {@code BIGINT} columns ({@link
 * #nanos}); the values themselves are JSON text ({@link ControlJson}), which keeps their instants
 * exactly.
 *
 * <ul>
 *   <li>{@code run_snapshots}: one per run, primary key ({@code workspace_id, user_id, agent_id,
 *       session_id, run_id}): {@code snapshot_id}, {@code created_at}, {@code expire_at} (indexed,
 *       for {@code deleteExpiredSnapshots}), {@code snapshot_json}.
 *   <li>{@code run_results}: one per run that has ended, same primary key: {@code end_at}, {@code
 *       result_json}.
 *   <li>{@code write_decisions}: the audit, one row per decision, primary key {@code seq} (assigned
 *       on insert, increasing): the four scope ids, {@code run_id} (empty for Remember), {@code
 *       decided_at}, {@code outcome} (the enum name), {@code decision_json}. Indexed by ({@code
 *       workspace_id, seq}) and ({@code workspace_id, run_id, seq}) so a page of a workspace, or of
 *       one of its runs, is a range scan in order.
 *   <li>{@code tool_rules} (version 2): primary key ({@code workspace_id, tool_name, id}): {@code
 *       rule}, {@code rule_key} (the SHA-256 of the rule's normalised text, see {@link
 *       ToolRuleText}; unique per workspace and tool, so the same rule written twice, even by two
 *       writers at once, is one row), {@code priority} and {@code source} (enum names), {@code
 *       tags_json} and {@code objects_json} (JSON arrays of strings), {@code created_at}, {@code
 *       updated_at}.
 *   <li>{@code tool_stats} (version 2): one per tool used in a workspace, primary key ({@code
 *       workspace_id, tool_name}): {@code calls}, {@code failures}, {@code denials}, {@code
 *       last_failure_at} (null until a failure), {@code last_error} (at most {@value
 *       #MAX_ERROR_MESSAGE} characters).
 *   <li>{@code tool_failures} (version 2): failures by category, primary key ({@code workspace_id,
 *       tool_name, category}): {@code failures}.
 *   <li>{@code tool_denials} (version 2): the audit of enforcement, primary key {@code seq}: {@code
 *       workspace_id}, {@code tool_name}, {@code rule_id}, {@code matched_object} (at most {@value
 *       #MAX_MATCHED_OBJECT} characters), {@code run_id}, {@code denied_at}. Indexed by ({@code
 *       workspace_id, denied_at, seq}) and ({@code workspace_id, tool_name, denied_at, seq}), so
 *       the newest denials of a workspace, or of one of its tools, are a backward range scan.
 *   <li>{@code sessions} (version 3): one per session, primary key ({@code workspace_id, user_id,
 *       session_id}): {@code agent_id} (of the last append), {@code created_at}, {@code updated_at}
 *       (indexed with the owner, for listings newest first), {@code last_message_at}, {@code
 *       last_seq} (the sequence of its last message), {@code message_count}.
 *   <li>{@code session_messages} (version 3): every message, primary key ({@code workspace_id,
 *       user_id, session_id, seq}), unique ({@code ..., id}): {@code role} (the enum name), {@code
 *       name}, {@code content}, {@code message_at} (indexed, for retention), {@code visible},
 *       {@code run_id}, {@code term_count} (its index terms, with repeats), {@code context_count}
 *       (version 4: its context's index terms, with repeats; 0 for messages indexed before), {@code
 *       extra_json} (tool call and result, usage, snapshot id, metadata).
 *   <li>{@code session_terms} (version 3): the inverted index of the visible messages, one row per
 *       ({@code workspace_id, user_id, term, session_id, seq}) (the primary key until version 9;
 *       since then not enforced, an append inserts a message's postings once): {@code tf}, {@code
 *       context_tf} (version 4: how often the term occurs in the message's context; a term only
 *       there has {@code tf} 0), and copies of the message's {@code term_count}, {@code
 *       context_count} (version 4), {@code message_at} and {@code role} so a search filters and
 *       ranks from the postings alone. Indexed by term with all of these (version 9: a search reads
 *       no row), and by message, for deletes.
 *   <li>{@code session_unindexed} (version 10): the visible messages whose postings are not in
 *       {@code session_terms} yet, primary key ({@code workspace_id, user_id, session_id, seq}):
 *       {@code message_at}, {@code appended_at}. An append inserts the row with the message; the
 *       transaction that writes the postings deletes it (and writes nothing when it is gone:
 *       written by another, or the message deleted, which deletes the row first).
 *   <li>{@code session_stats} (version 3): per owner ({@code workspace_id, user_id}) the visible
 *       {@code messages}, their {@code terms} and {@code context_terms} (version 4): BM25F's N and
 *       average length; {@code generation}, raised whenever messages of the owner are deleted
 *       (caches of its vectors read again).
 *   <li>{@code session_vectors} (version 3): a vector per visible message and embedder, primary key
 *       {@code vseq} (assigned on insert, increasing: a cache catches up on what it has not read),
 *       unique ({@code workspace_id, user_id, session_id, seq, embedder}), with copies of the
 *       message's {@code message_at}, {@code role} and {@code name}; {@code vector} holds the
 *       floats little-endian. Indexed by ({@code workspace_id, user_id, embedder, vseq}).
 *   <li>{@code run_receipts} (version 5): one per run that wrote, inserted with its {@code
 *       run_results} row, primary key {@code seq} (assigned on insert, increasing: listings go
 *       newest first by it), unique (the four scope ids, {@code run_id}): {@code task_id} (empty
 *       when the run named none), {@code end_at}, {@code receipt_json}. Indexed by ({@code
 *       workspace_id, seq DESC}), ({@code workspace_id, run_id, seq DESC}) and ({@code
 *       workspace_id, user_id, task_id, seq DESC}), so a page of a workspace's or a task's runs, or
 *       one run, is a range scan newest first.
 *   <li>{@code tasks} (version 5): one per task a run named, primary key ({@code workspace_id,
 *       user_id, task_id}): {@code state} (the enum name), {@code final_run_id} (empty for none),
 *       {@code run_count}, {@code created_at}, {@code updated_at}, {@code accepted_at} (null until
 *       a verdict).
 *   <li>{@code task_skills} (version 5): the skill versions a task's runs named, primary key
 *       ({@code workspace_id, user_id, task_id, skill, version}; {@code version} empty for an
 *       unversioned use), indexed by ({@code workspace_id, skill, version}) for counting a skill's
 *       tasks.
 *   <li>{@code skill_effects} (version 5): per workspace and skill version, primary key ({@code
 *       workspace_id, skill, version}): {@code accepted_tasks} and {@code abandoned_tasks}, the
 *       tasks using it in those states, counted again whenever one of them gets a verdict (or, once
 *       decided, a run naming a new skill version); {@code updated_at}.
 *   <li>{@code maintenance_runs} (version 6): the last run of each maintenance target, primary key
 *       {@code target}: {@code ok}, {@code started_at}, {@code ended_at}, {@code run_json} (the
 *       whole run, counts included). Version 6 also indexes {@code write_decisions} by {@code
 *       decided_at}, for pruning the audit by age.
 *   <li>{@code skill_candidates} (version 7): one per candidate, primary key ({@code workspace_id,
 *       candidate_id}): {@code name}, {@code status} (the enum name), {@code created_at}, {@code
 *       updated_at}, {@code candidate_json} (the rest of it). Indexed by ({@code workspace_id,
 *       updated_at DESC, candidate_id DESC}) and the same with {@code status} after the workspace,
 *       so a page of a workspace's candidates, of all or of one status, is a range scan.
 *   <li>{@code skill_candidate_evidence} (version 7): the evidence a candidate holds, primary key
 *       ({@code workspace_id, candidate_id, subject}): {@code position} (its order), {@code kind},
 *       {@code evidence_json}. Indexed by ({@code workspace_id, subject}): which candidate holds a
 *       memory or a task.
 *   <li>{@code approvals} (version 7): primary key {@code approval_id}, unique ({@code
 *       workspace_id, kind, subject_id}): one per candidate ({@code kind} {@code skill_candidate},
 *       {@code subject_id} its id): {@code state}, {@code reason}, {@code created_at}, {@code
 *       decided_at} (null while pending).
 *   <li>{@code skill_versions} (version 7): one per published version, primary key ({@code
 *       workspace_id, name, version}): {@code candidate_id}, {@code description}, {@code etag} (of
 *       the file as published), {@code published_at}.
 *   <li>{@code maintenance_leases} (version 8): primary key {@code name}: {@code owner} (who holds
 *       it), {@code expire_at} (renewed while a pass runs; past it, another may take it), {@code
 *       pass_start} (when the last pass taken under it started, so a scheduled pass runs once).
 *   <li>{@code tool_rule_versions} (version 8): per workspace, primary key {@code workspace_id}:
 *       {@code version}, raised by every put and delete of its tool rules.
 * </ul>
 */
final class ControlSchema {
  /** The version this code reads and writes. */
  static final int VERSION = 10;

  /** The tables' versions, for {@link dev.memsidecar.jdbc.Database#open}. */
  static final VersionedSchema SCHEMA =
      new VersionedSchema(
          "control",
          VERSION,
          "control_schema_history",
          "control_schema",
          List.of(new SessionTermsByTerm()),
          ControlSchema.class.getClassLoader());

  static final String SNAPSHOTS = "run_snapshots";
  static final String RESULTS = "run_results";
  static final String DECISIONS = "write_decisions";
  static final String TOOL_RULES = "tool_rules";
  static final String TOOL_STATS = "tool_stats";
  static final String TOOL_FAILURES = "tool_failures";
  static final String TOOL_DENIALS = "tool_denials";
  static final String SESSIONS = "sessions";
  static final String SESSION_MESSAGES = "session_messages";
  static final String SESSION_TERMS = "session_terms";
  static final String SESSION_UNINDEXED = "session_unindexed";
  static final String SESSION_STATS = "session_stats";
  static final String SESSION_VECTORS = "session_vectors";
  static final String RECEIPTS = "run_receipts";
  static final String TASKS = "tasks";
  static final String TASK_SKILLS = "task_skills";
  static final String SKILL_EFFECTS = "skill_effects";
  static final String SKILL_CANDIDATES = "skill_candidates";
  static final String SKILL_EVIDENCE = "skill_candidate_evidence";
  static final String APPROVALS = "approvals";
  static final String SKILL_VERSIONS = "skill_versions";
  static final String MAINTENANCE_RUNS = "maintenance_runs";
  static final String MAINTENANCE_LEASES = "maintenance_leases";
  static final String TOOL_RULE_VERSIONS = "tool_rule_versions";

  /** The longest last error message a tool's stats keep; a longer one is cut. */
  static final int MAX_ERROR_MESSAGE = 1024;

  /** The longest matched object a denial keeps; a longer one is cut. */
  static final int MAX_MATCHED_OBJECT = 256;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private ControlSchema() {}

  /**
   * {@code t} in epoch nanoseconds, exact from 1677-09-21 to 2262-04-11; an instant outside that
   * range becomes {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE}, which keeps comparisons right
   * (an expiry time centuries away stays in the future).
   */
  static long nanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), NANOS_PER_SECOND), t.getNano());
    } catch (ArithmeticException e) {
      return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** {@link #nanos}, but an instant outside its exact range fails with IllegalArgumentException. */
  static long exactNanos(Instant t, String what) {
    long n = nanos(t);
    if (n == Long.MIN_VALUE || n == Long.MAX_VALUE) {
      throw new IllegalArgumentException(what + " must be between 1677-09-21 and 2262-04-11: " + t);
    }
    return n;
  }

  /** The instant of {@link #nanos} {@code n}. */
  static Instant instant(long n) {
    return Instant.ofEpochSecond(
        Math.floorDiv(n, NANOS_PER_SECOND), Math.floorMod(n, NANOS_PER_SECOND));
  }
}
