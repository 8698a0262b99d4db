package dev.memsidecar.toolkit;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.language.Languages;
import dev.memsidecar.language.Terms;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.IntPredicate;

/**
 * An in-memory hybrid (keyword + vector) search index over a set of records, such as one namespace:
 * each record with its unit embedding and its keywords. The one ranker of the record providers that
 * score in memory ({@code langmem-sqlite}, {@code deepagents-files}).
 *
 * <h2>Ranking</h2>
 *
 * For a query with text {@code T} and unit vector {@code q} ({@link SearchQuery#vector()}, or the
 * embedding of {@code T}), each record {@code r} gets:
 *
 * <ul>
 *   <li><b>vector score</b> {@code v = max(0, cos(q, e(r)))}, where {@code e(r)} embeds {@code
 *       content + "\n" + context};
 *   <li><b>keyword score</b> {@code b = BM25F(r) / the best BM25F of an admitted record} (0 when no
 *       record holds a query keyword). Keywords are {@link Terms#keywords} with each English word
 *       {@link Languages#stem stemmed} ("painted" matches "paints"); the query's are those of
 *       {@code T} (each counted once). BM25F ({@code k1} {@value #K1}, {@code b} {@value #B},
 *       {@code idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))}) counts a keyword of the context
 *       {@value HybridScore#CONTEXT_WEIGHT} as much as one of the content, summary or tags, in term
 *       frequencies and in lengths alike: neighbouring lines help a record match, less than its own
 *       words;
 *   <li><b>speaker cue</b> {@code s = 1} when a query keyword is a keyword of the record's speaker
 *       label ({@link Terms#speaker}: "Caroline" in "Caroline: I went to a support group"), else 0:
 *       a question about a person leans to what that person said;
 * </ul>
 *
 * and scores it with {@link HybridScore} (the one hybrid score and its weights; the index's {@code
 * w} is given at construction, {@link HybridScore#meaningWeightFor}). A record whose embedding is
 * all zeros (its vector still to be made, in a store that makes vectors behind its writes) is
 * scored by its words alone, as a query without a vector scores every record: with no meaning to
 * measure, a cosine of 0 would rank it below every record that has one, and a record just written
 * would be found by its words only once its vector landed. Stemming and BM25 instead of plain
 * keyword coverage lifted the {@code hash} embedder's R@10 on LoCoMo from 0.695 to 0.738.
 *
 * <p>Only records the query {@link SearchQuery#admits admits} (status, expiry at {@link
 * SearchQuery#now()}, kinds, tags) and scoring at least {@link SearchQuery#minScore()} are hits;
 * the best {@link SearchQuery#topK()} come back highest score first, ties going to the newer update
 * time, then to the smaller id.
 *
 * <h2>Layout, cost and thread-safety</h2>
 *
 * Records sit in dense slots: embeddings in one {@code float[]} (slot-major), keywords as sorted
 * arrays of term ids from a per-index dictionary, and an inverted index that maps each term id to
 * its postings: the slots holding it, with its counts in their content and context. The keyword
 * side of a search walks only the postings of the query keywords, {@code O(P)} for the {@code P}
 * (record, query keyword) pairs that occur, where a scan of every record took {@code O(N |Q| log
 * K)} for {@code N} records, {@code |Q|} query keywords and {@code K} keywords per record; it sums
 * each record's terms in the same order as that scan, so scores and ranking are the same to the
 * bit. Up to {@link #EXACT_UP_TO} records the vector side is exact: the query vector is compared
 * with every embedding in one cache-friendly pass, {@code O(N d)} for {@code d} dimensions, plus
 * {@code O(N log topK)} for the selection, and that pass is most of a search's cost (about 6 ms at
 * 25,000 records of 384 dimensions on one core of the 2-core machine the benchmarks ran on, and
 * memory-bound: 1.5 KB a record). Above, each embedding also has a one-bit {@link SignSketch
 * sketch} (68 bytes at 384 dimensions), from which one pass estimates every record's score (its
 * BM25F exact, its cosine from the sketch); only the records of the best {@value
 * #SKETCH_CANDIDATES} estimates (or 50 per hit asked for) are then scored exactly, and the hits are
 * the best of those. That may miss a hit the exact pass would rank (with bge-small-en-q it found
 * all of the exact top 10 at 5,000 and 10,000 records, 99.98% at 25,000 and 99.6% at 100,000:
 * {@code it/bench} SketchBench); every hit's score is exact. When the filters or the minimum score
 * leave fewer than {@code topK} of them, the search compares every record after all. From {@value
 * Halves#SPLIT_FROM} records on, each of these passes runs in two halves, the second on a pool
 * thread when one is free ({@link Halves}): on two cores a lone search takes both (the sketched
 * search at 100,000 records 1.6-2.3 ms p50 in process instead of 2.8), and searches that keep every
 * core busy run as before, less the hand-off. A put or remove updates one posting per keyword of
 * the record; each (record, keyword) pair takes 16 bytes (term id, place in the postings, slot and
 * two counts) where it took 8. The dictionary only grows until the index is rebuilt. Searches share
 * a read lock and run in parallel; {@link #put} and {@link #remove} take the write lock.
 */
public final class HybridIndex {
  private static final Comparator<ScoredRecord> BEST_FIRST = ScoredRecord.BEST_FIRST;

  private static final int INITIAL_SLOTS = 16;

  private static final double CONTEXT_WEIGHT = HybridScore.CONTEXT_WEIGHT;

  /** BM25 term-frequency saturation. */
  static final double K1 = 1.2;

  /** BM25 length normalisation. */
  static final double B = 0.75;

  /**
   * Up to how many records a search compares the query with every vector; above, it compares only
   * the likeliest (see the class description).
   */
  public static final int EXACT_UP_TO = 5_000;

  /**
   * How many records, at least, a search over a larger namespace scores exactly: those whose
   * sketched score is highest ({@value} or 50 per hit asked for, whichever is more).
   */
  static final int SKETCH_CANDIDATES = 1_000;

  // Estimated scores are binned to pick the likeliest records without sorting them.
  private static final int SKETCH_BINS = 2048;

  private final int dimensions;
  private final double meaningWeight;
  private final int exactUpTo;
  private final SignSketch sketch;
  // How many slots hold a vector that is not all zeros, and which ones do not.
  private int embedded;
  private final BitSet unembedded = new BitSet();
  private final ReadWriteLock lock = new ReentrantReadWriteLock();

  // Slot i holds records[i], its embedding at vectors[i * dimensions ..], its sorted term ids and,
  // aligned with them, where slot i sits in each term's postings.
  private MemoryRecord[] records = new MemoryRecord[INITIAL_SLOTS];
  private int[][] termIds = new int[INITIAL_SLOTS][];
  private int[][] postingAt = new int[INITIAL_SLOTS][];
  private int[][] speakerIds = new int[INITIAL_SLOTS][];
  private int[] contentLength = new int[INITIAL_SLOTS];
  private int[] contextLength = new int[INITIAL_SLOTS];
  private long totalContentLength;
  private long totalContextLength;
  private float[] vectors;
  private int size;
  private final Map<String, Integer> slotById = new HashMap<>();

  // Term id t is held by the slots postingSlots[t][0 .. documentFrequency[t] - 1] (in no order),
  // as often as postingContent[t] (content, summary and tags) and postingContext[t] say.
  private final Map<String, Integer> termDictionary = new HashMap<>();
  private int[] documentFrequency = new int[64];
  private int[][] postingSlots = new int[64][];
  private short[][] postingContent = new short[64][];
  private short[][] postingContext = new short[64][];

  /**
   * An empty index for embeddings of {@code dimensions} floats from a semantic embedder (meaning
   * weight {@value HybridScore#MEANING_WEIGHT}).
   */
  public HybridIndex(int dimensions) {
    this(dimensions, HybridScore.MEANING_WEIGHT);
  }

  /**
   * An empty index for embeddings of {@code dimensions} floats, meaning weighing {@code
   * meaningWeight} (0..1; see {@link HybridScore#meaningWeightFor}) and words {@code 1 -
   * meaningWeight}.
   */
  public HybridIndex(int dimensions, double meaningWeight) {
    this(dimensions, meaningWeight, EXACT_UP_TO);
  }

  /**
   * An empty index as {@link #HybridIndex(int, double)}, whose searches compare the query with
   * every vector up to {@code exactUpTo} records and with the likeliest above.
   */
  public HybridIndex(int dimensions, double meaningWeight, int exactUpTo) {
    if (dimensions < 1) {
      throw new IllegalArgumentException("dimensions must be positive: " + dimensions);
    }
    if (!(meaningWeight >= 0 && meaningWeight <= 1)) {
      throw new IllegalArgumentException("meaningWeight must be 0..1: " + meaningWeight);
    }
    if (exactUpTo < 0) {
      throw new IllegalArgumentException("exactUpTo must not be negative: " + exactUpTo);
    }
    this.dimensions = dimensions;
    this.meaningWeight = meaningWeight;
    this.exactUpTo = exactUpTo;
    this.sketch = new SignSketch(dimensions);
    this.vectors = new float[INITIAL_SLOTS * dimensions];
  }

  /** Adds {@code record} with its unit {@code vector}, replacing the entry with its id. */
  public void put(MemoryRecord record, float[] vector) {
    requireNonNull(record, "record is null");
    requireNonNull(vector, "vector is null");
    if (vector.length != dimensions) {
      throw new IllegalArgumentException(
          "vector has " + vector.length + " dimensions, the index " + dimensions);
    }
    List<String> content = new ArrayList<>(keywords(record.content()));
    content.addAll(keywords(record.summary()));
    for (String tag : record.tags()) {
      content.addAll(keywords(tag));
    }
    List<String> context = keywords(record.context());
    TreeMap<String, int[]> counts = new TreeMap<>();
    for (String t : content) {
      counts.computeIfAbsent(t, x -> new int[2])[0]++;
    }
    for (String t : context) {
      counts.computeIfAbsent(t, x -> new int[2])[1]++;
    }
    lock.writeLock().lock();
    try {
      int n = counts.size();
      long[] packed = new long[n];
      int i = 0;
      for (Map.Entry<String, int[]> e : counts.entrySet()) {
        int[] c = e.getValue();
        packed[i++] =
            ((long) termId(e.getKey()) << 32)
                | ((long) Math.min(c[0], Short.MAX_VALUE) << 16)
                | Math.min(c[1], Short.MAX_VALUE);
      }
      Arrays.sort(packed); // by term id
      int[] speaker =
          keywords(Terms.speaker(record.content())).stream().mapToInt(this::termId).toArray();
      Integer slot = slotById.get(record.id());
      if (slot == null) {
        slot = size++;
        ensureCapacity(size);
        slotById.put(record.id(), slot);
      } else {
        unindex(slot);
        embedded -= unembedded.get(slot) ? 0 : 1;
      }
      boolean zero = isZero(vector);
      embedded += zero ? 0 : 1;
      unembedded.set(slot, zero);
      records[slot] = record;
      speakerIds[slot] = speaker;
      contentLength[slot] = content.size();
      contextLength[slot] = context.size();
      totalContentLength += content.size();
      totalContextLength += context.size();
      System.arraycopy(vector, 0, vectors, slot * dimensions, dimensions);
      if (size > exactUpTo && sketch.due(embedded, SKETCH_CANDIDATES)) {
        sketch.build(vectors, size, embedded);
      } else {
        sketch.update(slot, vectors);
      }
      int[] ids = new int[n];
      int[] at = new int[n];
      for (i = 0; i < n; i++) {
        ids[i] = (int) (packed[i] >>> 32);
        at[i] =
            addPosting(
                ids[i], slot, (short) ((packed[i] >>> 16) & 0xFFFF), (short) (packed[i] & 0xFFFF));
      }
      termIds[slot] = ids;
      postingAt[slot] = at;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Drops the entry with {@code id}, if any. */
  public void remove(String id) {
    lock.writeLock().lock();
    try {
      Integer slot = slotById.remove(id);
      if (slot == null) {
        return;
      }
      unindex(slot);
      embedded -= unembedded.get(slot) ? 0 : 1;
      int last = --size;
      if (slot != last) {
        // Keep slots dense: move the last entry into the hole.
        records[slot] = records[last];
        termIds[slot] = termIds[last];
        postingAt[slot] = postingAt[last];
        speakerIds[slot] = speakerIds[last];
        contentLength[slot] = contentLength[last];
        contextLength[slot] = contextLength[last];
        System.arraycopy(vectors, last * dimensions, vectors, slot * dimensions, dimensions);
        unembedded.set(slot, unembedded.get(last));
        sketch.move(last, slot);
        int[] ids = termIds[slot];
        int[] at = postingAt[slot];
        for (int i = 0; i < ids.length; i++) {
          postingSlots[ids[i]][at[i]] = slot;
        }
        slotById.put(records[slot].id(), slot);
      }
      unembedded.clear(last);
      records[last] = null;
      termIds[last] = null;
      postingAt[last] = null;
      speakerIds[last] = null;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Takes the terms of the entry in {@code slot} out of the postings and lengths. */
  private void unindex(int slot) {
    int[] ids = termIds[slot];
    int[] at = postingAt[slot];
    for (int i = 0; i < ids.length; i++) {
      removePosting(ids[i], at[i]);
    }
    totalContentLength -= contentLength[slot];
    totalContextLength -= contextLength[slot];
  }

  /** Appends {@code slot} to term {@code t}'s postings; returns where it sits. */
  private int addPosting(int t, int slot, short inContent, short inContext) {
    int n = documentFrequency[t];
    int[] slots = postingSlots[t];
    if (slots == null || n == slots.length) {
      int capacity = slots == null ? 2 : slots.length + (slots.length >> 1) + 1;
      postingSlots[t] = slots = slots == null ? new int[capacity] : Arrays.copyOf(slots, capacity);
      postingContent[t] =
          postingContent[t] == null
              ? new short[capacity]
              : Arrays.copyOf(postingContent[t], capacity);
      postingContext[t] =
          postingContext[t] == null
              ? new short[capacity]
              : Arrays.copyOf(postingContext[t], capacity);
    }
    slots[n] = slot;
    postingContent[t][n] = inContent;
    postingContext[t][n] = inContext;
    documentFrequency[t] = n + 1;
    return n;
  }

  /** Removes the posting at {@code at} of term {@code t}, moving its last posting there. */
  private void removePosting(int t, int at) {
    int last = --documentFrequency[t];
    if (at != last) {
      int moved = postingSlots[t][last];
      postingSlots[t][at] = moved;
      postingContent[t][at] = postingContent[t][last];
      postingContext[t][at] = postingContext[t][last];
      postingAt[moved][Arrays.binarySearch(termIds[moved], t)] = at;
    }
  }

  /**
   * The indexed vector of the record with {@code r.id()} if that entry has the same content and
   * context as {@code r} (so its embedding is still right), else {@code null}. Lets a caller
   * re-index a changed record without embedding it again when only its metadata changed.
   */
  public float[] vectorIfSameText(MemoryRecord r) {
    lock.readLock().lock();
    try {
      Integer slot = slotById.get(r.id());
      if (slot == null
          || !records[slot].content().equals(r.content())
          || !records[slot].context().equals(r.context())) {
        return null;
      }
      return Arrays.copyOfRange(vectors, slot * dimensions, (slot + 1) * dimensions);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Whether a search now compares the query only with the likeliest records. */
  boolean sketches() {
    lock.readLock().lock();
    try {
      return sketching();
    } finally {
      lock.readLock().unlock();
    }
  }

  public int size() {
    lock.readLock().lock();
    try {
      return size;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The best matches of {@code query} as the class Javadoc ranks them.
   *
   * @param queryVector unit vector with as many dimensions as the indexed ones
   */
  public List<ScoredRecord> search(SearchQuery query, float[] queryVector) {
    if (queryVector.length != dimensions) {
      throw new IllegalArgumentException(
          "query vector has " + queryVector.length + " dimensions, the index " + dimensions);
    }
    String[] queryTerms = new LinkedHashSet<>(keywords(query.text())).toArray(String[]::new);
    int topK = query.topK();
    Selection top = new Selection(query);
    Bm25 keyword = Bm25.NONE;
    lock.readLock().lock();
    try {
      // Query terms no record holds have id -1: they never match.
      int[] queryIds = new int[queryTerms.length];
      double[] idf = new double[queryTerms.length];
      for (int i = 0; i < queryTerms.length; i++) {
        Integer id = termDictionary.get(queryTerms[i]);
        queryIds[i] = id == null ? -1 : id;
        int df = id == null ? 0 : documentFrequency[id];
        idf[i] = Math.log(1.0 + (size - df + 0.5) / (df + 0.5));
      }
      keyword = bm25(queryIds, idf);
      double[] bm25 = keyword.score;
      double best = 0;
      for (int i = 0; i < keyword.held; i++) {
        int slot = keyword.slots[i];
        if (bm25[slot] > best && query.admits(records[slot])) {
          best = bm25[slot];
        }
      }
      if (!isZero(queryVector)) {
        if (sketching()) {
          top = likeliest(query, queryVector, bm25, best, queryIds);
          if (top.kept.size() < topK) {
            // Filters or the minimum score left too few of them: compare every record after all.
            top = new Selection(query);
          }
        }
        if (top.kept.isEmpty()) {
          top = scored(query, slot -> true, queryVector, bm25, best, queryIds);
        }
      } else {
        // Words alone (a zero query vector: a write's neighbour search, or a text the embedder
        // makes nothing of): only the slots holding a query word score above 0, so they are
        // scored first, without the pass over every embedding; the rest tie at 0 and fill what
        // is left, newest first, as the full pass would.
        for (int i = 0; i < keyword.held; i++) {
          int slot = keyword.slots[i];
          top.offer(slot, wordScore(slot, best > 0 ? bm25[slot] / best : 0, queryIds));
        }
        if (top.kept.size() < topK) {
          for (int slot = 0; slot < size; slot++) {
            if (keyword.held == 0 || bm25[slot] == 0) {
              top.offer(slot, wordScore(slot, 0, queryIds));
            }
          }
        }
      }
    } finally {
      lock.readLock().unlock();
      keyword.release();
    }
    List<ScoredRecord> out = new ArrayList<>(top.kept);
    out.sort(BEST_FIRST);
    return List.copyOf(out);
  }

  /** Whether a search compares the query only with the likeliest records (read lock held). */
  private boolean sketching() {
    return size > exactUpTo && sketch.built();
  }

  /**
   * The best hits among the slots {@code chosen} accepts, each scored exactly ({@link #score}); in
   * {@link Halves}.
   */
  private Selection scored(
      SearchQuery query,
      IntPredicate chosen,
      float[] queryVector,
      double[] bm25,
      double best,
      int[] queryIds) {
    Selection[] parts = {new Selection(query), new Selection(query)};
    Halves.run(
        size,
        (part, from, to) -> {
          Selection top = parts[part];
          for (int slot = from; slot < to; slot++) {
            if (chosen.test(slot)) {
              top.offer(slot, score(slot, queryVector, bm25, best, queryIds));
            }
          }
        });
    return parts[0].merge(parts[1]);
  }

  /**
   * The score of {@code slot} for a query with a non-zero vector, {@code bm25} being the slots'
   * BM25F scores and {@code best} the best of an admitted slot.
   */
  private float score(int slot, float[] queryVector, double[] bm25, double best, int[] queryIds) {
    boolean hasWords = queryIds.length > 0;
    double b = hasWords && best > 0 ? bm25[slot] / best : 0;
    if (unembedded.get(slot)) {
      return wordScore(slot, b, queryIds);
    }
    double v = Math.max(0.0, dot(queryVector, vectors, slot * dimensions));
    boolean speaker = hasWords && speakerNamed(speakerIds[slot], queryIds);
    return HybridScore.of(meaningWeight, true, hasWords, v, b, speaker);
  }

  /**
   * The best hits among the slots whose score estimated from their {@link SignSketch sketches} (and
   * their exact BM25F) is among the best {@link #SKETCH_CANDIDATES} (or 50 per hit asked for), each
   * scored exactly: one pass of a few instructions per slot, then the full comparison for about a
   * thousand. Both passes run in {@link Halves}.
   */
  private Selection likeliest(
      SearchQuery query, float[] queryVector, double[] bm25, double best, int[] queryIds) {
    SignSketch.Probe probe = sketch.probe(queryVector);
    boolean hasWords = queryIds.length > 0;
    // The estimated score times the number of bins is the bin.
    float meaning = (float) ((hasWords ? meaningWeight : 1) * SKETCH_BINS);
    float perBm25 = (float) (hasWords && best > 0 ? (1 - meaningWeight) / best * SKETCH_BINS : 0);
    Scratch scratch = SCRATCH.get();
    scratch.ensureBins(size);
    short[] bin = scratch.bin;
    int[][] histograms = scratch.histograms;
    // Both, before the pass: a pass run whole fills only the first.
    Arrays.fill(histograms[0], 0);
    Arrays.fill(histograms[1], 0);
    Halves.run(
        size,
        (part, from, to) -> {
          int[] histogram = histograms[part];
          for (int slot = from; slot < to; slot++) {
            float estimate = meaning * Math.max(0f, probe.estimate(slot));
            if (perBm25 > 0) {
              estimate += perBm25 * (float) bm25[slot];
            }
            int b = Math.min(SKETCH_BINS - 1, (int) estimate);
            bin[slot] = (short) b;
            histogram[b]++;
          }
        });
    // A record without a vector is estimated as it is scored: by its words alone.
    for (int slot = unembedded.nextSetBit(0); slot >= 0; slot = unembedded.nextSetBit(slot + 1)) {
      float words = hasWords && best > 0 ? (float) (bm25[slot] / best * SKETCH_BINS) : 0f;
      int b = Math.min(SKETCH_BINS - 1, (int) words);
      histograms[0][bin[slot]]--;
      bin[slot] = (short) b;
      histograms[0][b]++;
    }
    int wanted = Math.max(SKETCH_CANDIDATES, 50 * query.topK());
    int lowest = SKETCH_BINS - 1;
    int count = histograms[0][lowest] + histograms[1][lowest];
    while (count < wanted && lowest > 0) {
      lowest--;
      count += histograms[0][lowest] + histograms[1][lowest];
    }
    int lowestBin = lowest;
    return scored(query, slot -> bin[slot] >= lowestBin, queryVector, bm25, best, queryIds);
  }

  /** The score of {@code slot} for a query without a vector, its BM25F share being {@code b}. */
  private float wordScore(int slot, double b, int[] queryIds) {
    boolean hasWords = queryIds.length > 0;
    boolean speaker = hasWords && speakerNamed(speakerIds[slot], queryIds);
    return HybridScore.of(meaningWeight, false, hasWords, 0, b, speaker);
  }

  /** The best {@code topK} hits of one search as its slots are offered, in {@code kept}. */
  private final class Selection {
    private final SearchQuery query;
    // The worst kept hit first.
    final PriorityQueue<ScoredRecord> kept;
    private float worstKept = -1f;

    Selection(SearchQuery query) {
      this.query = query;
      this.kept = new PriorityQueue<>(query.topK() + 1, BEST_FIRST.reversed());
    }

    /** Keeps the record of {@code slot} if it is admitted and among the best so far. */
    void offer(int slot, float score) {
      if (score < query.minScore() || (kept.size() == query.topK() && score < worstKept)) {
        return;
      }
      MemoryRecord record = records[slot];
      if (query.admits(record)) {
        keep(new ScoredRecord(record, score));
      }
    }

    private void keep(ScoredRecord hit) {
      int topK = query.topK();
      if (kept.size() < topK) {
        kept.add(hit);
      } else if (BEST_FIRST.compare(hit, kept.peek()) < 0) {
        kept.poll();
        kept.add(hit);
      }
      if (kept.size() == topK) {
        worstKept = kept.peek().score();
      }
    }

    /** This selection with the hits {@code other} (of the same query, other slots) kept too. */
    Selection merge(Selection other) {
      other.kept.forEach(this::keep);
      return this;
    }
  }

  /**
   * BM25F scores by slot ({@code score}, 0 for a slot holding no query term; empty when no slot
   * holds one) and the {@code held} slots holding one ({@code slots[0 .. held - 1]}, in no order).
   */
  private record Bm25(double[] score, int[] slots, int held) {
    static final Bm25 NONE = new Bm25(new double[0], new int[0], 0);

    /**
     * Zeroes the held slots of {@code score}, this thread's {@link Scratch}, for its next search.
     */
    void release() {
      for (int i = 0; i < held; i++) {
        score[slots[i]] = 0;
      }
    }
  }

  /**
   * Each thread's arrays for {@link #bm25}, as long as the largest namespace it searched: the
   * scores by slot, all 0 between its searches, and the slots holding a query term. Allocating them
   * for every search (every Remember searches its namespace; 800 KB at 100,000 records) was a sixth
   * of what a busy sidecar allocated.
   */
  private static final class Scratch {
    double[] score = new double[0];
    int[] held = new int[0];
    // For likeliest: each slot's bin of estimated score, and how many slots each bin holds in
    // each of its two halves.
    short[] bin = new short[0];
    final int[][] histograms = new int[2][SKETCH_BINS];

    void ensureBins(int size) {
      if (bin.length < size) {
        bin = new short[Math.max(size, bin.length + (bin.length >> 1))];
      }
    }

    void ensure(int size) {
      if (score.length < size) {
        int capacity = Math.max(size, score.length + (score.length >> 1));
        score = new double[capacity];
        held = new int[capacity];
      }
    }
  }

  private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

  /**
   * The BM25F score of every slot for the query terms {@code queryIds} (-1: held by none) of
   * inverse document frequencies {@code idf}, from the postings: only the slots holding a query
   * term are touched. Each slot's terms are summed in query order, as a scan of every slot's terms
   * would sum them, so the scores are the same to the last bit.
   */
  private Bm25 bm25(int[] queryIds, double[] idf) {
    boolean anyHeld = false;
    for (int id : queryIds) {
      anyHeld |= id >= 0 && documentFrequency[id] > 0;
    }
    if (!anyHeld) {
      return Bm25.NONE;
    }
    double avgLength =
        Math.max(1e-9, (totalContentLength + CONTEXT_WEIGHT * totalContextLength) / (double) size);
    Scratch scratch = SCRATCH.get();
    scratch.ensure(size);
    double[] out = scratch.score;
    int[] held = scratch.held;
    int count = 0;
    for (int i = 0; i < queryIds.length; i++) {
      int t = queryIds[i];
      if (t < 0) {
        continue;
      }
      int[] slots = postingSlots[t];
      short[] inContent = postingContent[t];
      short[] inContext = postingContext[t];
      for (int p = 0, n = documentFrequency[t]; p < n; p++) {
        int slot = slots[p];
        double length = contentLength[slot] + CONTEXT_WEIGHT * contextLength[slot];
        double norm = K1 * (1 - B + B * length / avgLength);
        double tf = inContent[p] + CONTEXT_WEIGHT * inContext[p];
        if (out[slot] == 0) { // every term adds a positive amount: the slot's first one
          held[count++] = slot;
        }
        out[slot] += idf[i] * tf * (K1 + 1) / (tf + norm);
      }
    }
    return new Bm25(out, held, count);
  }

  private static boolean speakerNamed(int[] speaker, int[] queryIds) {
    for (int s : speaker) {
      for (int q : queryIds) {
        if (s == q) {
          return true;
        }
      }
    }
    return false;
  }

  /** The keywords of a record's content, summary, context and tags. */
  public static Set<String> keywordsOf(MemoryRecord r) {
    Set<String> out = new TreeSet<>(keywords(r.content()));
    out.addAll(keywords(r.summary()));
    out.addAll(keywords(r.context()));
    for (String tag : r.tags()) {
      out.addAll(keywords(tag));
    }
    return out;
  }

  /** {@link Terms#keywords} of {@code text}, each {@link Languages#stem stemmed}. */
  static List<String> keywords(String text) {
    List<String> out = Terms.keywords(text);
    out.replaceAll(Languages::stem);
    return out;
  }

  private int termId(String term) {
    Integer id = termDictionary.get(term);
    if (id == null) {
      id = termDictionary.size();
      termDictionary.put(term, id);
      if (id >= documentFrequency.length) {
        int capacity = documentFrequency.length * 2;
        documentFrequency = Arrays.copyOf(documentFrequency, capacity);
        postingSlots = Arrays.copyOf(postingSlots, capacity);
        postingContent = Arrays.copyOf(postingContent, capacity);
        postingContext = Arrays.copyOf(postingContext, capacity);
      }
    }
    return id;
  }

  private void ensureCapacity(int slots) {
    if (slots <= records.length) {
      return;
    }
    int capacity = Math.max(slots, records.length + (records.length >> 1)); // grow by half
    records = Arrays.copyOf(records, capacity);
    termIds = Arrays.copyOf(termIds, capacity);
    postingAt = Arrays.copyOf(postingAt, capacity);
    speakerIds = Arrays.copyOf(speakerIds, capacity);
    contentLength = Arrays.copyOf(contentLength, capacity);
    contextLength = Arrays.copyOf(contextLength, capacity);
    vectors = Arrays.copyOf(vectors, capacity * dimensions);
    sketch.ensureCapacity(capacity);
  }

  /**
   * Whether {@code vector} is all zeros: a query vector that asks for words alone, or the vector of
   * a text with nothing to embed (or, in a store that makes vectors behind its writes, one to
   * come).
   */
  public static boolean isZero(float[] vector) {
    return isZero(vector, 0, vector.length);
  }

  /** Whether the {@code length} floats of {@code vectors} from {@code off} are all zeros. */
  static boolean isZero(float[] vectors, int off, int length) {
    for (int i = off; i < off + length; i++) {
      if (vectors[i] != 0f) {
        return false;
      }
    }
    return true;
  }

  /** Dot product of {@code q} with the {@code q.length} floats of {@code m} from {@code off}. */
  private static double dot(float[] q, float[] m, int off) {
    // Four partial sums let the CPU overlap the multiply-adds.
    float s0 = 0;
    float s1 = 0;
    float s2 = 0;
    float s3 = 0;
    int n = q.length;
    int i = 0;
    for (; i + 3 < n; i += 4) {
      s0 += q[i] * m[off + i];
      s1 += q[i + 1] * m[off + i + 1];
      s2 += q[i + 2] * m[off + i + 2];
      s3 += q[i + 3] * m[off + i + 3];
    }
    for (; i < n; i++) {
      s0 += q[i] * m[off + i];
    }
    return (s0 + s1) + (s2 + s3);
  }
}
