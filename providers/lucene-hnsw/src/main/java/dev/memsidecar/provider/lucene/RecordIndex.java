package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import java.io.Closeable;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.codecs.KnnVectorsWriter;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.NRTCachingDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.IOUtils;

/**
 * The open Lucene index of one profile's records: its directory, its writer and the searchers
 * refreshed from it. Writes reach the writer in memory and searchers by near-real-time refreshes;
 * durability comes from the store's write-ahead log ({@link Translog}), and the index is committed
 * only every few seconds ({@link #commit}), each commit naming the log generation from which on the
 * log must be replayed. Three things keep a commit cheap all the same: new small segments are built
 * in RAM ({@link NRTCachingDirectory}) and written out whole at the commit, merged segments up to
 * {@value #MAX_COMPOUND_SEGMENT_MB} MB stay compound files (three files to fsync, not 25), and a
 * commit fsyncs its files in parallel ({@link ConcurrentSyncDirectory}). Vectors use Lucene's HNSW
 * format with the profile's M and beam width, up to {@value Embedder#MAX_DIMENSIONS} dimensions.
 *
 * <p>The commit data names the embedder (name and dimensions) the vectors came from; opening with
 * another re-embeds every record once. Vectors of another length go to another field ({@link
 * RecordDocument#vectorField}), so the index never mixes lengths. It also names the log generation
 * ({@value #TRANSLOG_KEY}): every operation logged in older generations is in the commit.
 *
 * <p>Thread-safety: {@link #writer()} and {@link #searchers()} are Lucene's thread-safe classes;
 * {@link #commit} may run from any thread (one at a time); {@link #close()} must not run
 * concurrently with their use.
 */
final class RecordIndex implements Closeable {
  /** Segments up to this size are written as compound files, see {@link #mergePolicy()}. */
  static final int MAX_COMPOUND_SEGMENT_MB = 64;

  /** New segments up to this size are built in RAM until their commit. */
  static final double CACHE_SEGMENT_MB = 4.0;

  /** At most this much of them. */
  static final double CACHE_TOTAL_MB = 32.0;

  /** How many files a commit fsyncs at once. */
  static final int SYNC_THREADS = 8;

  /** The commit data key naming the first log generation the commit does not hold. */
  static final String TRANSLOG_KEY = "memsidecar.translog.generation";

  private static final String EMBEDDER_KEY = "memsidecar.embedder";
  private static final System.Logger LOG = System.getLogger(RecordIndex.class.getName());

  private final MemoryTextAnalyzer analyzer;
  private final Directory directory;
  private final IndexWriter writer;
  private final SearcherManager searchers;
  private final int reembedded;
  private final long committedTranslogGeneration;

  private RecordIndex(
      MemoryTextAnalyzer analyzer,
      Directory directory,
      IndexWriter writer,
      SearcherManager searchers,
      int reembedded,
      long committedTranslogGeneration) {
    this.analyzer = analyzer;
    this.directory = directory;
    this.writer = writer;
    this.searchers = searchers;
    this.reembedded = reembedded;
    this.committedTranslogGeneration = committedTranslogGeneration;
  }

  /**
   * Opens (creating if needed) the index in {@code indexPath}, re-embedding its records if they
   * came from another embedder. Closes whatever it opened when it fails.
   *
   * @param name names the fsync threads, e.g. the profile id
   * @throws org.apache.lucene.store.LockObtainFailedException when another writer holds the index
   * @throws IOException when the index cannot be read or written
   */
  static RecordIndex open(
      String name,
      Path indexPath,
      Embedder embedder,
      int maxConn,
      int beamWidth,
      VectorEncoding vectors)
      throws IOException {
    requireNonNull(name, "name is null");
    requireNonNull(indexPath, "indexPath is null");
    requireNonNull(embedder, "embedder is null");
    MemoryTextAnalyzer analyzer = new MemoryTextAnalyzer();
    Directory directory = null;
    IndexWriter writer = null;
    SearcherManager searchers = null;
    try {
      Files.createDirectories(indexPath);
      // Small new segments are built in RAM and reach the disk whole at the commit's sync: a
      // flush writes some 25 files and packs them into one compound file, and only that one, its
      // entries and segment info need to touch the file system.
      directory =
          new ConcurrentSyncDirectory(
              new NRTCachingDirectory(
                  FSDirectory.open(indexPath), CACHE_SEGMENT_MB, CACHE_TOTAL_MB),
              SYNC_THREADS,
              "lucene-hnsw-fsync-" + name);
      IndexWriterConfig config = new IndexWriterConfig(analyzer);
      config.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
      config.setCodec(codec(vectors.format(maxConn, beamWidth)));
      config.setCommitOnClose(false); // the store commits, naming the log generation
      config.setMergePolicy(new IdleMergePolicy(mergePolicy()));
      // Reads refresh after writes: never make them wait for merges (Lucene's default waits up to
      // 500 ms on a refresh or a commit to merge the small segments of the full flush first).
      config.setMaxFullFlushMergeWaitMillis(0);
      writer = new IndexWriter(directory, config);
      int reembedded = adoptEmbedder(name, writer, embedder);
      long translogGeneration = translogGeneration(writer);
      searchers = new SearcherManager(writer, true, false, null);
      return new RecordIndex(
          analyzer, directory, writer, searchers, reembedded, translogGeneration);
    } catch (IOException | RuntimeException e) {
      // Roll back, as closing would commit (a re-embedding cut short, say).
      IOUtils.closeWhileHandlingException(searchers);
      rollback(writer);
      IOUtils.closeWhileHandlingException(directory);
      throw e;
    }
  }

  /** How the writer analyses text; queries must be analysed the same way. */
  MemoryTextAnalyzer analyzer() {
    return analyzer;
  }

  /** Takes every change. */
  IndexWriter writer() {
    return writer;
  }

  /** Searchers over the index, refreshed from {@link #writer()}. */
  SearcherManager searchers() {
    return searchers;
  }

  /** How many records {@link #open} re-embedded because they came from another embedder. */
  int reembedded() {
    return reembedded;
  }

  /**
   * The log generation the last commit at {@link #open} named: replay starts there. -1 when it
   * named none (a new index, or one written before the log existed).
   */
  long committedTranslogGeneration() {
    return committedTranslogGeneration;
  }

  /**
   * Commits every change the writer holds, naming {@code translogGeneration} in the commit data:
   * call it only once every operation logged in older generations has reached the writer.
   */
  synchronized void commit(long translogGeneration) throws IOException {
    Map<String, String> data = commitData(writer);
    data.put(TRANSLOG_KEY, Long.toString(translogGeneration));
    writer.setLiveCommitData(data.entrySet());
    writer.commit();
  }

  /** How many records (documents) the index holds. */
  int records() {
    return writer.getDocStats().numDocs;
  }

  /**
   * Closes without committing, as {@link #close()}, ignoring failures. For a store that failed to
   * open, so a replay cut short by corruption leaves the index as it was.
   */
  void abandon() {
    IOUtils.closeWhileHandlingException(searchers);
    rollback(writer);
    IOUtils.closeWhileHandlingException(directory);
  }

  /** Drops whatever {@code writer} holds since its last commit and closes it. */
  private static void rollback(IndexWriter writer) {
    if (writer == null) {
      return;
    }
    try {
      writer.rollback();
    } catch (IOException | RuntimeException e) {
      IOUtils.closeWhileHandlingException(writer);
    }
  }

  /**
   * Closes the searchers, the writer and the directory without committing: whatever the writer
   * holds since the last {@link #commit} is dropped (the log holds it), and merges under way are
   * aborted rather than waited for, so closing is quick even while a large merge runs.
   */
  @Override
  public void close() throws IOException {
    try {
      searchers.close();
    } finally {
      try {
        writer.rollback();
      } finally {
        directory.close();
      }
    }
  }

  /** How many segments the writer's index has; for tests. */
  int segments() throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(writer)) {
      return reader.leaves().size();
    }
  }

  /**
   * Makes the index's vectors those of {@code embedder}: if the last commit names another embedder,
   * re-embeds every record ({@value BatchIndexer#BATCH} per {@link Embedder#embedAll} call) and
   * commits, naming {@code embedder}, so the index never holds vectors of two embedders once
   * committed. Returns how many records it re-indexed.
   */
  private static int adoptEmbedder(String name, IndexWriter writer, Embedder embedder)
      throws IOException {
    String want = embedder.name() + "/" + embedder.dimensions();
    Map<String, String> data = commitData(writer);
    String had = data.get(EMBEDDER_KEY);
    if (want.equals(had)) {
      return 0;
    }
    int count = 0;
    try (DirectoryReader reader = DirectoryReader.open(writer)) {
      if (reader.numDocs() > 0) {
        LOG.log(
            Level.INFO,
            () ->
                "lucene-hnsw: profile '"
                    + name
                    + "': re-embedding "
                    + reader.numDocs()
                    + " records with '"
                    + want
                    + "': the index holds vectors of "
                    + (had == null ? "an unknown embedder" : "'" + had + "'"));
      }
      BatchIndexer reindex =
          new BatchIndexer(
              writer,
              embedder,
              "profile '" + name + "': re-embedding with '" + want + "'",
              reader.numDocs());
      for (LeafReaderContext leaf : reader.leaves()) {
        Bits liveDocs = leaf.reader().getLiveDocs();
        StoredFields fields = leaf.reader().storedFields();
        for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
          if (liveDocs == null || liveDocs.get(doc)) {
            reindex.put(RecordDocument.read(fields, doc), null);
          }
        }
      }
      count = (int) reindex.finish();
    }
    if (count > 0) {
      int n = count;
      LOG.log(
          Level.INFO, () -> "lucene-hnsw: profile '" + name + "': re-embedded " + n + " records");
    }
    data.put(EMBEDDER_KEY, want);
    writer.setLiveCommitData(data.entrySet());
    writer.commit();
    return count;
  }

  /** A copy of the writer's live commit data. */
  private static Map<String, String> commitData(IndexWriter writer) {
    Map<String, String> data = new HashMap<>();
    Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
    if (live != null) {
      for (Map.Entry<String, String> e : live) {
        data.put(e.getKey(), e.getValue());
      }
    }
    return data;
  }

  /** The log generation the last commit names, or -1. */
  private static long translogGeneration(IndexWriter writer) throws IOException {
    String value = commitData(writer).get(TRANSLOG_KEY);
    if (value == null) {
      return -1;
    }
    try {
      long g = Long.parseLong(value);
      if (g >= 1) {
        return g;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new CorruptIndexException(
        "commit data " + TRANSLOG_KEY + " is not a log generation: " + value, "segments");
  }

  /**
   * Tiered merging, but with segments up to {@value #MAX_COMPOUND_SEGMENT_MB} MB always in compound
   * files. Refreshes after small write groups make many tiny segments and merge them often; the
   * stock policy writes a merged segment holding over 10% of a small index as some 25 separate
   * files, each to be fsynced at the next commit, opened and deleted again soon after. Compound, it
   * is three.
   */
  private static TieredMergePolicy mergePolicy() {
    TieredMergePolicy policy = new TieredMergePolicy();
    policy.setNoCFSRatio(1.0);
    policy.setMaxCFSSegmentSizeMB(MAX_COMPOUND_SEGMENT_MB);
    return policy;
  }

  /**
   * Lucene's current codec with {@code delegate}, its dimension limit raised, for every vector
   * field.
   */
  private static Codec codec(KnnVectorsFormat delegate) {
    KnnVectorsFormat format = new HnswFormat(delegate);
    return new Lucene104Codec() {
      @Override
      public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
        return format;
      }
    };
  }

  /**
   * An HNSW format of Lucene's ({@link VectorEncoding#format}) allowing up to {@value
   * Embedder#MAX_DIMENSIONS} dimensions (Lucene's own default limit is 1024). It writes under the
   * standard format's name and files, so any Lucene reads the index back with the stock format;
   * only the writer-side length check differs.
   */
  private static final class HnswFormat extends KnnVectorsFormat {
    private final KnnVectorsFormat delegate;

    HnswFormat(KnnVectorsFormat delegate) {
      super(delegate.getName());
      this.delegate = delegate;
    }

    @Override
    public KnnVectorsWriter fieldsWriter(SegmentWriteState state) throws IOException {
      return delegate.fieldsWriter(state);
    }

    @Override
    public KnnVectorsReader fieldsReader(SegmentReadState state) throws IOException {
      return delegate.fieldsReader(state);
    }

    @Override
    public int getMaxDimensions(String fieldName) {
      return Embedder.MAX_DIMENSIONS;
    }

    @Override
    public String toString() {
      return "HnswFormat(" + delegate + ")";
    }
  }
}
