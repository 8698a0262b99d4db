package dev.memsidecar.toolkit;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.language.Languages;
import dev.memsidecar.language.Terms;
import java.util.ArrayList;
import java.util.Arrays;
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

/**
 * {@link HybridIndex} as it was before its postings: every search scans every record,
 * binary-searching each query term in each record's sorted term ids and comparing the query vector
 * with every embedding. Kept as the reference {@link TestHybridIndexEquivalence} ranks against,
 * unchanged but for one rule added since: a record whose embedding is all zeros is scored by its
 * words alone.
 */
final class ScanHybridIndex {
  private static final Comparator<ScoredRecord> BEST_FIRST = ScoredRecord.BEST_FIRST;

  private static final int INITIAL_SLOTS = 16;

  private static final double CONTEXT_WEIGHT = HybridScore.CONTEXT_WEIGHT;

  /** BM25 term-frequency saturation. */
  static final double K1 = 1.2;

  /** BM25 length normalisation. */
  static final double B = 0.75;

  private final int dimensions;
  private final double meaningWeight;
  private final ReadWriteLock lock = new ReentrantReadWriteLock();

  // Slot i holds records[i], its embedding at vectors[i * dimensions ..], its sorted term ids and,
  // aligned with them, how often each occurs in its content (with summary and tags) and context.
  private MemoryRecord[] records = new MemoryRecord[INITIAL_SLOTS];
  private int[][] termIds = new int[INITIAL_SLOTS][];
  private short[][] contentCounts = new short[INITIAL_SLOTS][];
  private short[][] contextCounts = new short[INITIAL_SLOTS][];
  private int[][] speakerIds = new int[INITIAL_SLOTS][];
  private int[] contentLength = new int[INITIAL_SLOTS];
  private int[] contextLength = new int[INITIAL_SLOTS];
  private long totalContentLength;
  private long totalContextLength;
  private float[] vectors;
  private int size;
  private final Map<String, Integer> slotById = new HashMap<>();

  private final Map<String, Integer> termDictionary = new HashMap<>();
  private int[] documentFrequency = new int[64];

  /**
   * An empty index for embeddings of {@code dimensions} floats from a semantic embedder (meaning
   * weight {@value HybridScore#MEANING_WEIGHT}).
   */
  ScanHybridIndex(int dimensions) {
    this(dimensions, HybridScore.MEANING_WEIGHT);
  }

  /**
   * An empty index for embeddings of {@code dimensions} floats, meaning weighing {@code
   * meaningWeight} (0..1; see {@link HybridScore#meaningWeightFor}) and words {@code 1 -
   * meaningWeight}.
   */
  ScanHybridIndex(int dimensions, double meaningWeight) {
    if (dimensions < 1) {
      throw new IllegalArgumentException("dimensions must be positive: " + dimensions);
    }
    if (!(meaningWeight >= 0 && meaningWeight <= 1)) {
      throw new IllegalArgumentException("meaningWeight must be 0..1: " + meaningWeight);
    }
    this.dimensions = dimensions;
    this.meaningWeight = meaningWeight;
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
      int[] ids = new int[n];
      short[] inContent = new short[n];
      short[] inContext = new short[n];
      for (i = 0; i < n; i++) {
        ids[i] = (int) (packed[i] >>> 32);
        inContent[i] = (short) ((packed[i] >>> 16) & 0xFFFF);
        inContext[i] = (short) (packed[i] & 0xFFFF);
      }
      int[] speaker =
          keywords(Terms.speaker(record.content())).stream().mapToInt(this::termId).toArray();
      Integer slot = slotById.get(record.id());
      if (slot == null) {
        slot = size++;
        ensureCapacity(size);
        slotById.put(record.id(), slot);
      } else {
        unindex(slot);
      }
      records[slot] = record;
      termIds[slot] = ids;
      speakerIds[slot] = speaker;
      contentCounts[slot] = inContent;
      contextCounts[slot] = inContext;
      contentLength[slot] = content.size();
      contextLength[slot] = context.size();
      totalContentLength += content.size();
      totalContextLength += context.size();
      System.arraycopy(vector, 0, vectors, slot * dimensions, dimensions);
      count(ids, +1);
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
      int last = --size;
      if (slot != last) {
        // Keep slots dense: move the last entry into the hole.
        records[slot] = records[last];
        termIds[slot] = termIds[last];
        speakerIds[slot] = speakerIds[last];
        contentCounts[slot] = contentCounts[last];
        contextCounts[slot] = contextCounts[last];
        contentLength[slot] = contentLength[last];
        contextLength[slot] = contextLength[last];
        System.arraycopy(vectors, last * dimensions, vectors, slot * dimensions, dimensions);
        slotById.put(records[slot].id(), slot);
      }
      records[last] = null;
      termIds[last] = null;
      speakerIds[last] = null;
      contentCounts[last] = null;
      contextCounts[last] = null;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Takes the terms of the entry in {@code slot} out of the frequencies and lengths. */
  private void unindex(int slot) {
    count(termIds[slot], -1);
    totalContentLength -= contentLength[slot];
    totalContextLength -= contextLength[slot];
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
    PriorityQueue<ScoredRecord> kept = new PriorityQueue<>(topK + 1, BEST_FIRST.reversed());
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
      double[] bm25 = bm25(query, queryIds, idf);
      double best = 0;
      for (int slot = 0; slot < bm25.length; slot++) {
        if (bm25[slot] > best && query.admits(records[slot])) {
          best = bm25[slot];
        }
      }
      float worstKept = -1f;
      boolean hasVector = !HybridIndex.isZero(queryVector);
      boolean hasWords = queryIds.length > 0;
      for (int slot = 0; slot < size; slot++) {
        double v = Math.max(0.0, dot(queryVector, vectors, slot * dimensions));
        double b = hasWords && best > 0 ? bm25[slot] / best : 0;
        boolean speaker = hasWords && speakerNamed(speakerIds[slot], queryIds);
        // A record without a vector (all zeros) is scored by its words alone.
        boolean measured = hasVector && !HybridIndex.isZero(vectors, slot * dimensions, dimensions);
        float clamped =
            HybridScore.of(meaningWeight, measured, hasWords, measured ? v : 0, b, speaker);
        if (clamped < query.minScore() || (kept.size() == topK && clamped < worstKept)) {
          continue;
        }
        MemoryRecord record = records[slot];
        if (!query.admits(record)) {
          continue;
        }
        ScoredRecord hit = new ScoredRecord(record, clamped);
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
    } finally {
      lock.readLock().unlock();
    }
    List<ScoredRecord> out = new ArrayList<>(kept);
    out.sort(BEST_FIRST);
    return List.copyOf(out);
  }

  /**
   * The BM25F score of every slot for the query terms {@code queryIds} (-1: held by none) of
   * inverse document frequencies {@code idf}; an empty array when no slot holds any of them.
   */
  private double[] bm25(SearchQuery query, int[] queryIds, double[] idf) {
    boolean anyHeld = false;
    for (int id : queryIds) {
      anyHeld |= id >= 0 && documentFrequency[id] > 0;
    }
    if (!anyHeld) {
      return new double[0];
    }
    double avgLength =
        Math.max(1e-9, (totalContentLength + CONTEXT_WEIGHT * totalContextLength) / (double) size);
    double[] out = new double[size];
    for (int slot = 0; slot < size; slot++) {
      int[] held = termIds[slot];
      double length = contentLength[slot] + CONTEXT_WEIGHT * contextLength[slot];
      double norm = K1 * (1 - B + B * length / avgLength);
      double sum = 0;
      for (int i = 0; i < queryIds.length; i++) {
        int at = queryIds[i] < 0 ? -1 : Arrays.binarySearch(held, queryIds[i]);
        if (at >= 0) {
          double tf = contentCounts[slot][at] + CONTEXT_WEIGHT * contextCounts[slot][at];
          sum += idf[i] * tf * (K1 + 1) / (tf + norm);
        }
      }
      out[slot] = sum;
    }
    return out;
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
        documentFrequency = Arrays.copyOf(documentFrequency, documentFrequency.length * 2);
      }
    }
    return id;
  }

  private void count(int[] ids, int delta) {
    for (int id : ids) {
      documentFrequency[id] += delta;
    }
  }

  private void ensureCapacity(int slots) {
    if (slots <= records.length) {
      return;
    }
    int capacity = Math.max(slots, records.length + (records.length >> 1)); // grow by half
    records = Arrays.copyOf(records, capacity);
    termIds = Arrays.copyOf(termIds, capacity);
    speakerIds = Arrays.copyOf(speakerIds, capacity);
    contentCounts = Arrays.copyOf(contentCounts, capacity);
    contextCounts = Arrays.copyOf(contextCounts, capacity);
    contentLength = Arrays.copyOf(contentLength, capacity);
    contextLength = Arrays.copyOf(contextLength, capacity);
    vectors = Arrays.copyOf(vectors, capacity * dimensions);
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
