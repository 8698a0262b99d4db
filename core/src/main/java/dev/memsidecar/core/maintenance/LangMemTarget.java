package dev.memsidecar.core.maintenance;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.MemoryWriter;
import dev.memsidecar.core.ProfileCatalog;
import dev.memsidecar.core.WriteGate;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.run.Dedupe;
import dev.memsidecar.language.Terms;
import dev.memsidecar.language.TextRules;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@value #NAME} target: consolidates the records of every profile whose provider keeps records
 * and no memory files (langmem-sqlite, lucene-hnsw, a plugin), one namespace at a time, through the
 * provider SPI ({@link MemoryStore#namespaces}, {@link MemoryStore#list}, get, put, delete). In
 * each namespace, in this order:
 *
 * <ol>
 *   <li><b>expire</b>: active records past their expire time (short-term memories no longer
 *       recalled) are deleted ({@code expired});
 *   <li><b>merge and supersede</b>: each active record, oldest first, is compared with the earlier
 *       active records that share two of its rarest words or a canonical token, by the write path's
 *       own rules ({@link Dedupe#match}): a near-duplicate is merged into the earlier record
 *       ({@link Dedupe#merge}: sources, tags and confidence) and marked superseded by it ({@code
 *       merged}); a new value for an earlier record's subject supersedes that record ({@code
 *       superseded}). Nothing is lost: the merged record is written before the duplicate is marked,
 *       the successor before the old record, and superseded records are kept, linked both ways;
 *   <li><b>re-score</b>: each active record is scored again ({@link RecordRescore}) and one that
 *       falls below {@code cleanupThreshold} is dropped: marked forgotten, no longer recalled, with
 *       the reason in its metadata ({@value #DROPPED}) ({@code dropped});
 *   <li><b>retention</b>: records no longer recalled are deleted {@code maxAge} after their last
 *       change ({@code deleted_age}); then, while the namespace holds more than {@code maxCount}
 *       records or {@code maxBytes} bytes, the least valuable are deleted: records no longer
 *       recalled, oldest first, then active ones, lowest score first ({@code deleted_count}, {@code
 *       deleted_size}).
 * </ol>
 *
 * Every change is made under the namespace's write lock ({@link MemoryWriter#underNamespaceLock})
 * after reading the records concerned again: a record a request changed since the pass read it is
 * left alone ({@code skipped_changed}) for the next pass. So a pass runs beside requests, and a
 * crash at any point leaves every fact in an active record.
 *
 * <p>The pass works in the background at half a core at most: after each slice of work it pauses as
 * long as the slice took, so requests keep most of the machine.
 */
public final class LangMemTarget implements MaintenanceTarget {
  public static final String NAME = "langmem";

  /** Metadata key of a dropped record: why it was dropped. */
  public static final String DROPPED = "dropped";

  /** How many earlier records a record is compared with (as in the write path). */
  static final int NEIGHBOURS = MemoryWriter.NEIGHBOURS;

  /** How many of a record's rarest terms pick its neighbours. */
  static final int BLOCKING_TERMS = 4;

  /** A term in more records than this picks no neighbours (it says little about a fact). */
  static final int MAX_POSTINGS = 2_000;

  /** How many earlier records of one term are looked at, the nearest in time first. */
  static final int MAX_SCAN = 256;

  private static final int PAGE = 1000;
  private static final System.Logger LOG = System.getLogger(LangMemTarget.class.getName());

  private final ProfileCatalog profiles;
  private final MemoryWriter writer;
  private final Maintenance.RecordRetention retention;
  private final TextRules text;
  private final RecordRescore rescore;
  private final double duty;

  /**
   * @param writer whose namespace locks changes take
   * @param retention {@code memory.maintenance.langmem}
   */
  public LangMemTarget(
      ProfileCatalog profiles,
      MemoryWriter writer,
      Maintenance.RecordRetention retention,
      TextRules text) {
    this(profiles, writer, retention, text, 0.5);
  }

  /**
   * @param duty the share of one core the pass may take, 0..1 (1: no pauses)
   */
  LangMemTarget(
      ProfileCatalog profiles,
      MemoryWriter writer,
      Maintenance.RecordRetention retention,
      TextRules text,
      double duty) {
    this.profiles = requireNonNull(profiles, "profiles is null");
    this.writer = requireNonNull(writer, "writer is null");
    this.retention = requireNonNull(retention, "retention is null");
    this.text = requireNonNull(text, "text is null");
    this.rescore = new RecordRescore(retention.cleanupThreshold(), text);
    this.duty = duty;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void run(MaintenancePass pass) {
    for (String count :
        List.of(
            "namespaces",
            "records",
            "expired",
            "merged",
            "superseded",
            "dropped",
            "deleted_age",
            "deleted_count",
            "deleted_size",
            "skipped_changed")) {
      pass.add(count, 0);
    }
    Pace pace = new Pace(duty);
    for (ProfileCatalog.ActiveProfile profile : profiles.all()) {
      if (!profile.hasRecords() || profile.capabilities().contains(Capability.FILES)) {
        // A files provider's records are the entries of its memory files: the deepagents target's.
        continue;
      }
      List<Namespace> namespaces;
      try {
        namespaces = profile.store().namespaces();
      } catch (MemoryException e) {
        if (e.code() != MemoryException.Code.UNIMPLEMENTED) {
          throw e;
        }
        LOG.log(
            System.Logger.Level.INFO,
            () -> "maintenance: profile '" + profile.id() + "': " + e.getMessage());
        pass.add("profiles_skipped", 1);
        continue;
      }
      for (Namespace ns : namespaces) {
        pass.checkStopped();
        new NamespacePass(pass, pace, profile.store(), ns).run();
        pass.add("namespaces", 1);
      }
    }
  }

  /** What a pass keeps of each record: enough to decide, not the whole record. */
  private static final class Entry {
    final String id;
    final Instant created;
    Instant updated;
    MemoryStatus status;
    final MemoryKind kind;
    String content;
    final Validity validity;
    final Instant expires;
    final float gateScore;
    int sources;
    final boolean explicit;
    long bytes;
    boolean deleted;
    double score = Double.NaN;

    Entry(MemoryRecord r) {
      id = r.id();
      created = r.createTime();
      updated = r.updateTime();
      status = r.status();
      kind = r.kind();
      content = r.content();
      validity = r.validity();
      expires = r.expireTime();
      gateScore = r.gateScore();
      sources = r.sourceRefs().size();
      explicit = RecordRescore.explicit(r);
      bytes = bytes(r);
    }

    boolean active() {
      return !deleted && status == MemoryStatus.ACTIVE;
    }

    void refresh(MemoryRecord r) {
      updated = r.updateTime();
      status = r.status();
      content = r.content();
      sources = r.sourceRefs().size();
      bytes = bytes(r);
    }

    static long bytes(MemoryRecord r) {
      return (long) r.content().getBytes(StandardCharsets.UTF_8).length
          + r.summary().getBytes(StandardCharsets.UTF_8).length
          + r.context().getBytes(StandardCharsets.UTF_8).length;
    }
  }

  /** One namespace's consolidation. */
  private final class NamespacePass {
    private final MaintenancePass pass;
    private final Pace pace;
    private final MemoryStore store;
    private final Namespace ns;
    private final Instant now;
    private final List<Entry> entries = new ArrayList<>();

    NamespacePass(MaintenancePass pass, Pace pace, MemoryStore store, Namespace ns) {
      this.pass = pass;
      this.pace = pace;
      this.store = store;
      this.ns = ns;
      this.now = pass.startTime();
    }

    void run() {
      long t0 = System.nanoTime();
      load();
      long t1 = System.nanoTime();
      expire();
      dedupe();
      long t2 = System.nanoTime();
      drop();
      retain();
      long t3 = System.nanoTime();
      if (t3 - t0 > 1_000_000_000L) {
        LOG.log(
            System.Logger.Level.INFO,
            () ->
                String.format(
                    Locale.ROOT,
                    "maintenance: namespace %s, %,d records: read %d ms, merge %d ms, re-score"
                        + " and retention %d ms",
                    ns,
                    entries.size(),
                    (t1 - t0) / 1_000_000,
                    (t2 - t1) / 1_000_000,
                    (t3 - t2) / 1_000_000));
      }
    }

    private void load() {
      String cursor = null;
      do {
        pass.checkStopped();
        Page page = store.list(ns, new ListQuery(PAGE, cursor, true));
        for (MemoryRecord r : page.records()) {
          entries.add(new Entry(r));
        }
        cursor = page.nextCursor();
        pace.tick();
      } while (cursor != null);
      entries.sort(Comparator.comparing((Entry e) -> e.created).thenComparing(e -> e.id));
      pass.add("records", entries.size());
    }

    // ---------------------------------------------------------------- expire

    private void expire() {
      for (Entry e : entries) {
        if (e.active() && e.expires != null && !e.expires.isAfter(now)) {
          pass.checkStopped();
          if (change(List.of(e), fresh -> store.delete(ns, e.id))) {
            e.deleted = true;
            pass.add("expired", 1);
          }
          pace.tick();
        }
      }
    }

    // ---------------------------------------------------------------- merge and supersede

    private void dedupe() {
      Map<String, List<Integer>> postings = new HashMap<>();
      List<String[]> keys = new ArrayList<>(entries.size());
      for (int i = 0; i < entries.size(); i++) {
        Entry e = entries.get(i);
        String[] k = e.active() ? keys(e.content) : new String[0];
        keys.add(k);
        for (String term : k) {
          postings.computeIfAbsent(term, t -> new ArrayList<>(2)).add(i);
        }
        if ((i & 63) == 0) {
          pace.tick();
        }
      }
      for (int i = 0; i < entries.size(); i++) {
        Entry e = entries.get(i);
        if (!e.active()) {
          continue;
        }
        if ((i & 255) == 0) {
          pass.checkStopped();
        }
        List<Integer> near = neighbours(i, keys.get(i), postings);
        pace.tick();
        if (near.isEmpty()) {
          continue;
        }
        List<MemoryRecord> records = new ArrayList<>(near.size());
        for (int j : near) {
          records.add(sketch(entries.get(j)));
        }
        Optional<Dedupe.Match> match = Dedupe.match(e.content, e.kind, records);
        if (match.isEmpty()) {
          continue;
        }
        Entry other = entries.get(near.get(records.indexOf(match.get().existing())));
        if (match.get().relation() == Dedupe.Relation.DUPLICATE) {
          merge(other, e);
        } else {
          supersede(other, e);
        }
        pace.tick();
      }
    }

    /** The blocking keys of a text: its canonical tokens and its distinct keywords. */
    private String[] keys(String content) {
      LinkedHashSet<String> out = new LinkedHashSet<>();
      for (String token : text.canonicalTokens(content)) {
        out.add("\u0000" + token);
      }
      out.addAll(Terms.keywords(content));
      return out.toArray(String[]::new);
    }

    /**
     * The earlier active records that share at least two of {@code i}'s rarest keys (a canonical
     * token counts twice; one when it has only one), most shared first, then nearest in time. Two
     * texts the write path's rules relate share a subject of two words or a canonical token, so
     * this keeps the comparisons, the costly part, to the records that may relate.
     */
    private List<Integer> neighbours(int i, String[] k, Map<String, List<Integer>> postings) {
      List<String> chosen = new ArrayList<>(BLOCKING_TERMS);
      List<String> byRarity = new ArrayList<>(k.length);
      for (String term : k) {
        int df = postings.get(term).size();
        if (df >= 2 && df <= MAX_POSTINGS) {
          if (term.charAt(0) == '\u0000') {
            chosen.add(term);
          } else {
            byRarity.add(term);
          }
        }
      }
      byRarity.sort(Comparator.comparingInt((String t) -> postings.get(t).size()));
      for (String term : byRarity) {
        if (chosen.size() >= BLOCKING_TERMS) {
          break;
        }
        chosen.add(term);
      }
      if (chosen.isEmpty()) {
        return List.of();
      }
      Map<Integer, Integer> shared = new HashMap<>();
      for (String term : chosen) {
        // A shared canonical token is as strong as two shared words.
        int weight = term.charAt(0) == '\u0000' ? 2 : 1;
        List<Integer> list = postings.get(term);
        int at = java.util.Collections.binarySearch(list, i);
        int scanned = 0;
        for (int p = (at < 0 ? -at - 1 : at) - 1; p >= 0 && scanned < MAX_SCAN; p--) {
          int j = list.get(p);
          if (entries.get(j).active()) {
            shared.merge(j, weight, Integer::sum);
            scanned++;
          }
        }
      }
      int least = Math.min(2, chosen.size());
      shared.values().removeIf(n -> n < least);
      return shared.entrySet().stream()
          .sorted(
              Map.Entry.<Integer, Integer>comparingByValue()
                  .reversed()
                  .thenComparing(Map.Entry.<Integer, Integer>comparingByKey().reversed()))
          .limit(NEIGHBOURS)
          .map(Map.Entry::getKey)
          .toList();
    }

    /** What {@link Dedupe#match} reads of a record. */
    private MemoryRecord sketch(Entry e) {
      return MemoryRecord.builder()
          .id(e.id)
          .namespace(ns)
          .profile("")
          .kind(e.kind)
          .content(e.content)
          .createTime(e.created)
          .updateTime(e.updated)
          .status(e.status)
          .build();
    }

    /** Folds {@code duplicate} into {@code survivor}, then marks it superseded by the survivor. */
    private void merge(Entry survivor, Entry duplicate) {
      boolean done =
          change(
              List.of(survivor, duplicate),
              fresh -> {
                MemoryRecord kept = fresh.get(0);
                MemoryRecord merged = Dedupe.merge(kept, fresh.get(1), "", now);
                if (merged != kept) {
                  store.put(merged);
                }
                MemoryRecord marked = Dedupe.supersede(fresh.get(1), kept.id(), now);
                store.put(marked);
                survivor.refresh(merged);
                duplicate.refresh(marked);
                return true;
              });
      if (done) {
        pass.add("merged", 1);
      }
    }

    /** Marks {@code successor} as replacing {@code old}, then {@code old} superseded by it. */
    private void supersede(Entry old, Entry successor) {
      boolean done =
          change(
              List.of(old, successor),
              fresh -> {
                MemoryRecord marked = Dedupe.markSuccessor(fresh.get(1), old.id);
                store.put(marked);
                MemoryRecord replaced = Dedupe.supersede(fresh.get(0), successor.id, now);
                store.put(replaced);
                successor.refresh(marked);
                old.refresh(replaced);
                return true;
              });
      if (done) {
        pass.add("superseded", 1);
      }
    }

    // ---------------------------------------------------------------- re-score and drop

    private void drop() {
      for (Entry e : entries) {
        if (!e.active()) {
          continue;
        }
        WriteGate.Verdict v =
            rescore.rescore(
                e.gateScore,
                e.sources,
                e.explicit,
                e.validity,
                e.created,
                e.expires,
                e.content,
                now);
        if (v == null) {
          e.score = 10;
          continue;
        }
        e.score = v.score();
        if (v.admitted()) {
          continue;
        }
        pass.checkStopped();
        String why =
            String.format(
                Locale.ROOT,
                "re-scored %.1f, below the cleanup threshold %.1f",
                v.score(),
                rescore.threshold());
        boolean done =
            change(
                List.of(e),
                fresh -> {
                  MemoryRecord forgotten =
                      fresh.get(0).toBuilder()
                          .status(MemoryStatus.FORGOTTEN)
                          .metadata(withEntry(fresh.get(0).metadata(), DROPPED, why))
                          .updateTime(now)
                          .build();
                  store.put(forgotten);
                  e.refresh(forgotten);
                  return true;
                });
        if (done) {
          pass.add("dropped", 1);
        }
        pace.tick();
      }
    }

    // ---------------------------------------------------------------- retention

    private void retain() {
      if (!retention.maxAge().isZero()) {
        Instant before = now.minus(retention.maxAge());
        for (Entry e : entries) {
          if (!e.deleted && !e.active() && e.updated.isBefore(before)) {
            pass.checkStopped();
            delete(e, "deleted_age");
          }
        }
      }
      if (retention.maxCount() == 0 && retention.maxBytes() == 0) {
        return;
      }
      long count = 0;
      long bytes = 0;
      List<Entry> kept = new ArrayList<>();
      for (Entry e : entries) {
        if (!e.deleted) {
          kept.add(e);
          count++;
          bytes += e.bytes;
        }
      }
      boolean overCount = retention.maxCount() > 0 && count > retention.maxCount();
      boolean overBytes = retention.maxBytes() > 0 && bytes > retention.maxBytes();
      if (!overCount && !overBytes) {
        return;
      }
      kept.sort(
          Comparator.comparing((Entry e) -> e.active())
              .thenComparingDouble(e -> e.active() ? e.score : 0)
              .thenComparing(e -> e.updated)
              .thenComparing(e -> e.id));
      for (Entry e : kept) {
        overCount = retention.maxCount() > 0 && count > retention.maxCount();
        overBytes = retention.maxBytes() > 0 && bytes > retention.maxBytes();
        if (!overCount && !overBytes) {
          break;
        }
        pass.checkStopped();
        if (delete(e, overCount ? "deleted_count" : "deleted_size")) {
          count--;
          bytes -= e.bytes;
        }
      }
    }

    private boolean delete(Entry e, String count) {
      boolean done = change(List.of(e), fresh -> store.delete(ns, e.id));
      if (done) {
        e.deleted = true;
        pass.add(count, 1);
      }
      pace.tick();
      return done;
    }

    // ---------------------------------------------------------------- changes

    /**
     * Under the namespace's write lock, reads {@code these} again and, if none changed since the
     * pass read it, runs {@code work} on the fresh records. False (and counted) when one changed.
     */
    private boolean change(List<Entry> these, Change work) {
      return writer.underNamespaceLock(
          ns,
          () -> {
            List<MemoryRecord> fresh = new ArrayList<>(these.size());
            for (Entry e : these) {
              Optional<MemoryRecord> r = store.get(ns, e.id);
              if (r.isEmpty()
                  || !r.get().updateTime().equals(e.updated)
                  || r.get().status() != e.status) {
                pass.add("skipped_changed", 1);
                if (r.isEmpty()) {
                  e.deleted = true;
                } else {
                  e.refresh(r.get());
                }
                return false;
              }
              fresh.add(r.get());
            }
            return work.apply(fresh);
          });
    }
  }

  @FunctionalInterface
  private interface Change {
    boolean apply(List<MemoryRecord> fresh);
  }

  /** {@code m} with {@code key} = {@code value}, making room within the metadata bounds. */
  static Map<String, String> withEntry(Map<String, String> m, String key, String value) {
    java.util.TreeMap<String, String> out = new java.util.TreeMap<>(m);
    if (!out.containsKey(key) && out.size() >= MemoryRecord.MAX_METADATA_ENTRIES) {
      String drop = null;
      for (String k : out.descendingKeySet()) {
        if (!k.equals(Dedupe.SUPERSEDED_BY) && !k.equals(Dedupe.SUPERSEDES)) {
          drop = k;
          break;
        }
      }
      out.remove(drop);
    }
    out.put(key, value);
    return out;
  }

  /**
   * Keeps the pass at {@code duty} of a core: after each slice of about 20 ms of the thread's CPU
   * time, it sleeps until that CPU time is at most {@code duty} of the time since the slice began
   * (time spent waiting for the store's disk counts as rest).
   */
  static final class Pace {
    private static final long SLICE_NANOS = 20_000_000L;
    private static final java.lang.management.ThreadMXBean THREADS =
        java.lang.management.ManagementFactory.getThreadMXBean();
    private final double duty;
    private long wallStart = System.nanoTime();
    private long cpuStart = cpu();

    Pace(double duty) {
      this.duty = duty;
    }

    void tick() {
      if (duty >= 1) {
        return;
      }
      long cpu = cpu() - cpuStart;
      if (cpu < SLICE_NANOS) {
        return;
      }
      long pause = (long) (cpu / duty) - (System.nanoTime() - wallStart);
      if (pause > 0) {
        try {
          Thread.sleep(pause / 1_000_000L, (int) (pause % 1_000_000L));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      wallStart = System.nanoTime();
      cpuStart = cpu();
    }

    private static long cpu() {
      long t = THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
      return t < 0 ? System.nanoTime() : t;
    }
  }
}
