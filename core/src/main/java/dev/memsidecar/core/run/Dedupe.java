package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.Limits;
import dev.memsidecar.language.TextRules;
import dev.memsidecar.language.dedupe.MemoryComparison;
import dev.memsidecar.language.dedupe.TextRelation;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Finds whether a new memory repeats or replaces one already stored in its namespace, and merges or
 * supersedes accordingly. Works across kinds: a semantic and a procedural wording of one fact are
 * one record. Thread-safe; every method is a function of its arguments (records in, records out).
 *
 * <p>This is the record side of dedupe. How two texts relate (duplicate, supersedes, or neither,
 * and why) is the language module's ({@link MemoryComparison}, through {@link TextRules}): a shared
 * canonical token or near-identical words make a duplicate, a new value for the same subject or a
 * contradiction supersedes. {@link #match} walks the neighbours; {@link #merge}, {@link #supersede}
 * and {@link #markSuccessor} build the records to store.
 */
public final class Dedupe {
  /** Metadata key on a superseded record: the id of the record that replaced it. */
  public static final String SUPERSEDED_BY = "superseded_by";

  /** Metadata key on a successor: the id(s), comma-separated, of the record(s) it replaced. */
  public static final String SUPERSEDES = "supersedes";

  /** How much one merge from a new source raises confidence (capped at 1). */
  public static final float CONFIDENCE_STEP = 0.1f;

  /** The most source refs a merged record keeps: the first one and the latest others. */
  public static final int MAX_SOURCE_REFS = 64;

  private static final TextRules TEXT = TextRules.standard();

  /** How two memories relate. */
  public enum Relation {
    /** The candidate says what the record says: merge it into the record. */
    DUPLICATE,
    /** The candidate gives a new value for the record's subject: store it, supersede the record. */
    SUPERSEDES
  }

  /**
   * A neighbour the candidate relates to.
   *
   * @param existing the stored record
   * @param relation how the candidate relates to it
   * @param reason why, in words, for the audit (e.g. {@code same canonical token npm run x})
   */
  public record Match(MemoryRecord existing, Relation relation, String reason) {
    public Match {
      requireNonNull(existing, "existing is null");
      requireNonNull(relation, "relation is null");
      requireNonNull(reason, "reason is null");
    }
  }

  private Dedupe() {}

  // ---------------------------------------------------------------- match

  /**
   * How {@code content} relates to its neighbours: the first {@link Relation#DUPLICATE} in list
   * order, else the first {@link Relation#SUPERSEDES}, else empty (store it as a new record). Each
   * ACTIVE neighbour is compared by text ({@link MemoryComparison}).
   *
   * @param content the candidate's content
   * @param kind the candidate's kind: an episodic candidate (an event), or an episodic neighbour,
   *     supersedes only with a change marker
   * @param neighbours records of the candidate's namespace, any kind, best match first (the store's
   *     search); records that are not ACTIVE are skipped. About ten is the intended size: a text
   *     not seen before costs some 20 microseconds, a cached one a few.
   */
  public static Optional<Match> match(
      String content, MemoryKind kind, List<MemoryRecord> neighbours) {
    requireNonNull(content, "content is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(neighbours, "neighbours is null");
    MemoryComparison.Candidate candidate = TEXT.dedupeCandidate(content);
    Match supersedes = null;
    for (MemoryRecord existing : neighbours) {
      if (existing.status() != MemoryStatus.ACTIVE) {
        continue;
      }
      boolean event = kind == MemoryKind.EPISODIC || existing.kind() == MemoryKind.EPISODIC;
      Optional<TextRelation> related = candidate.relationTo(existing.content(), event);
      if (related.isEmpty()) {
        continue;
      }
      Match m =
          new Match(
              existing,
              switch (related.get().relation()) {
                case DUPLICATE -> Relation.DUPLICATE;
                case SUPERSEDES -> Relation.SUPERSEDES;
              },
              related.get().reason());
      if (m.relation() == Relation.DUPLICATE) {
        return Optional.of(m);
      }
      if (supersedes == null) {
        supersedes = m;
      }
    }
    return Optional.ofNullable(supersedes);
  }

  // ---------------------------------------------------------------- merge and supersede

  /**
   * {@code existing} with {@code candidate} folded in, as a DUPLICATE match asks. Keeps {@code
   * existing}'s id, namespace, profile, kind, status and create time, and its content — unless the
   * candidate's content contains it (case and whitespace aside) and is longer, the same statement
   * with more detail, and fits {@link MemoryRecord#MAX_CONTENT_BYTES}; then the candidate's content
   * and summary. Tags are unioned in order (up to {@link MemoryRecord#MAX_TAGS}); source refs gain
   * the candidate's and {@code sourceRef} (each once; at most {@value #MAX_SOURCE_REFS}, keeping
   * the first and the latest); confidence rises by {@value #CONFIDENCE_STEP} (capped at 1) when a
   * new source ref arrives; the gate score is the higher one; the candidate's context is appended
   * when new, cut to fit {@link MemoryRecord#MAX_CONTEXT_BYTES}; metadata keys the record lacks are
   * added within the metadata bounds; a short-term record re-taught as long-term becomes long-term,
   * and a short-term one keeps the later expire time. Idempotent: when nothing would change (the
   * same source merged twice), {@code existing} is returned as it is, update time included;
   * otherwise the update time is {@code now}.
   *
   * @throws IllegalArgumentException if the two records are in different namespaces
   */
  public static MemoryRecord merge(
      MemoryRecord existing, MemoryRecord candidate, String sourceRef, Instant now) {
    requireNonNull(existing, "existing is null");
    requireNonNull(candidate, "candidate is null");
    requireNonNull(sourceRef, "sourceRef is null");
    requireNonNull(now, "now is null");
    if (!existing.namespace().equals(candidate.namespace())) {
      throw new IllegalArgumentException(
          "cannot merge across namespaces: "
              + existing.namespace()
              + " and "
              + candidate.namespace());
    }
    MemoryRecord.Builder b = existing.toBuilder();
    if (refines(candidate.content(), existing.content())) {
      b.content(candidate.content());
      if (!candidate.summary().isEmpty()) {
        b.summary(candidate.summary());
      }
    } else if (existing.summary().isEmpty()) {
      b.summary(candidate.summary());
    }
    b.tags(unionTags(existing.tags(), candidate.tags()));
    List<String> refs = new ArrayList<>(existing.sourceRefs());
    boolean newSource = false;
    for (String ref : concat(candidate.sourceRefs(), sourceRef)) {
      if (!ref.isEmpty() && !refs.contains(ref)) {
        refs.add(ref);
        newSource = true;
      }
    }
    while (refs.size() > MAX_SOURCE_REFS) {
      refs.remove(1);
    }
    b.sourceRefs(refs);
    if (newSource) {
      float raised = Math.max(existing.confidence(), candidate.confidence()) + CONFIDENCE_STEP;
      b.confidence(Math.min(1.0f, Math.round(raised * 1000f) / 1000f));
    }
    b.gateScore(Math.max(existing.gateScore(), candidate.gateScore()));
    b.context(appendContext(existing.context(), candidate.context()));
    Map<String, String> metadata = new HashMap<>(existing.metadata());
    for (Map.Entry<String, String> e : new TreeMap<>(candidate.metadata()).entrySet()) {
      if (metadata.size() >= MemoryRecord.MAX_METADATA_ENTRIES) {
        break;
      }
      if (e.getKey().length() <= MemoryRecord.MAX_METADATA_KEY_CHARS
          && e.getValue().length() <= MemoryRecord.MAX_METADATA_VALUE_CHARS) {
        metadata.putIfAbsent(e.getKey(), e.getValue());
      }
    }
    b.metadata(metadata);
    if (existing.sensitivity().isEmpty()) {
      b.sensitivity(candidate.sensitivity());
    }
    if (existing.validity() == Validity.SHORT_TERM) {
      if (candidate.validity() == Validity.LONG_TERM) {
        b.validity(Validity.LONG_TERM).expireTime(null);
      } else if (existing.expireTime() != null
          && candidate.expireTime() != null
          && candidate.expireTime().isAfter(existing.expireTime())) {
        b.expireTime(candidate.expireTime());
      }
    }
    MemoryRecord merged = b.build();
    if (merged.equals(existing)) {
      return existing;
    }
    return merged.toBuilder().updateTime(now).build();
  }

  private static List<String> concat(List<String> refs, String one) {
    List<String> out = new ArrayList<>(refs);
    out.add(one);
    return out;
  }

  /** Whether {@code candidate} says all of {@code existing} and more, and fits a record. */
  private static boolean refines(String candidate, String existing) {
    return TEXT.elaborates(candidate, existing)
        && candidate.getBytes(StandardCharsets.UTF_8).length <= MemoryRecord.MAX_CONTENT_BYTES;
  }

  private static List<String> unionTags(List<String> a, List<String> b) {
    Set<String> out = new LinkedHashSet<>(a);
    for (String t : b) {
      if (out.size() >= MemoryRecord.MAX_TAGS) {
        break;
      }
      if (!t.isEmpty() && t.length() <= MemoryRecord.MAX_TAG_CHARS) {
        out.add(t);
      }
    }
    return List.copyOf(out);
  }

  private static String appendContext(String existing, String added) {
    if (added.isBlank() || existing.contains(added)) {
      return existing;
    }
    if (existing.isEmpty()) {
      return Limits.cutUtf8(added, MemoryRecord.MAX_CONTEXT_BYTES);
    }
    int room =
        MemoryRecord.MAX_CONTEXT_BYTES - existing.getBytes(StandardCharsets.UTF_8).length - 1;
    if (room < 64) {
      return existing;
    }
    return existing + "\n" + Limits.cutUtf8(added, room);
  }

  /**
   * {@code old} replaced by the record {@code successorId}: status {@link MemoryStatus#SUPERSEDED}
   * (kept, never deleted, no longer recalled), metadata {@value #SUPERSEDED_BY} = {@code
   * successorId}, update time {@code now}. When the metadata is full, the greatest other key (in
   * string order) makes room. Idempotent: a record already superseded by {@code successorId} is
   * returned as it is.
   */
  public static MemoryRecord supersede(MemoryRecord old, String successorId, Instant now) {
    requireNonNull(old, "old is null");
    Ids.require("successorId", successorId);
    requireNonNull(now, "now is null");
    if (old.status() == MemoryStatus.SUPERSEDED
        && successorId.equals(old.metadata().get(SUPERSEDED_BY))) {
      return old;
    }
    Map<String, String> metadata = withEntry(old.metadata(), SUPERSEDED_BY, successorId);
    return old.toBuilder()
        .status(MemoryStatus.SUPERSEDED)
        .metadata(metadata)
        .updateTime(now)
        .build();
  }

  /**
   * {@code successor} marked as replacing {@code supersededId}: metadata {@value #SUPERSEDES} holds
   * the replaced ids, comma-separated, each once (a value past {@link
   * MemoryRecord#MAX_METADATA_VALUE_CHARS} keeps the latest ids). Times are left alone: the lead
   * marks a successor before storing it.
   */
  public static MemoryRecord markSuccessor(MemoryRecord successor, String supersededId) {
    requireNonNull(successor, "successor is null");
    Ids.require("supersededId", supersededId);
    String current = successor.metadata().getOrDefault(SUPERSEDES, "");
    List<String> ids = new ArrayList<>();
    for (String id : current.split(",")) {
      if (!id.isBlank()) {
        ids.add(id.strip());
      }
    }
    if (ids.contains(supersededId)) {
      return successor;
    }
    ids.add(supersededId);
    String value = String.join(",", ids);
    while (value.length() > MemoryRecord.MAX_METADATA_VALUE_CHARS) {
      ids.remove(0);
      value = String.join(",", ids);
    }
    return successor.toBuilder()
        .metadata(withEntry(successor.metadata(), SUPERSEDES, value))
        .build();
  }

  private static Map<String, String> withEntry(Map<String, String> m, String key, String value) {
    Map<String, String> out = new HashMap<>(m);
    if (!out.containsKey(key) && out.size() >= MemoryRecord.MAX_METADATA_ENTRIES) {
      String drop = null;
      for (String k : new TreeSet<>(out.keySet()).descendingSet()) {
        if (!k.equals(SUPERSEDED_BY) && !k.equals(SUPERSEDES)) {
          drop = k;
          break;
        }
      }
      out.remove(drop);
    }
    out.put(key, value);
    return out;
  }
}
