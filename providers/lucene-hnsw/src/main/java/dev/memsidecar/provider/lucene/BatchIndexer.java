package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryRecord;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.Term;

/**
 * Writes many records to an index writer at once, as re-embedding every record after an embedder
 * switch and replaying the write-ahead log do. Puts and deletes reach the writer in the order
 * given, {@value #BATCH} operations at a time, and the records of each batch are embedded with one
 * {@link Embedder#embedAll} call: a model embeds a batch many times faster than one text at a time.
 * Logs progress every {@value #PROGRESS_SECONDS} s, so a long run shows how far it is. Not
 * thread-safe; call {@link #finish()} at the end.
 */
final class BatchIndexer {
  /** Operations per batch, so records per {@link Embedder#embedAll} call at most. */
  static final int BATCH = 64;

  /** How often a long run logs how far it is. */
  static final long PROGRESS_SECONDS = 10;

  private static final System.Logger LOG = System.getLogger(BatchIndexer.class.getName());

  /**
   * A put ({@code record} set; {@code encoded} its codec form if the caller has it) or a delete.
   */
  private record Operation(Term key, MemoryRecord record, byte[] encoded) {}

  private final IndexWriter writer;
  private final Embedder embedder;
  private final String vectorField;
  private final String what;
  private final long total;
  private final List<Operation> pending = new ArrayList<>(BATCH);
  private final long started = System.nanoTime();
  private long lastReport = started;
  private long done;

  /**
   * @param what what the run is, for the progress messages, e.g. {@code profile 'user':
   *     re-embedding with 'hash/256'}
   * @param total how many operations the run will take, or -1 if not known
   */
  BatchIndexer(IndexWriter writer, Embedder embedder, String what, long total) {
    this.writer = requireNonNull(writer, "writer is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.vectorField = RecordDocument.vectorField(embedder.dimensions());
    this.what = requireNonNull(what, "what is null");
    this.total = total;
  }

  /**
   * Puts {@code record}, replacing the document of its key.
   *
   * @param encoded {@code RecordCodec.encode(record)} if the caller has it, else null
   */
  void put(MemoryRecord record, byte[] encoded) throws IOException {
    add(new Operation(RecordDocument.key(record.namespace(), record.id()), record, encoded));
  }

  /** Deletes the document of {@code key}, if there is one. */
  void delete(Term key) throws IOException {
    add(new Operation(key, null, null));
  }

  /**
   * Writes what is still pending.
   *
   * @return how many operations this indexer wrote in all
   */
  long finish() throws IOException {
    flush();
    return done;
  }

  private void add(Operation op) throws IOException {
    pending.add(op);
    if (pending.size() >= BATCH) {
      flush();
    }
  }

  private void flush() throws IOException {
    if (pending.isEmpty()) {
      return;
    }
    List<MemoryRecord> records = new ArrayList<>(pending.size());
    for (Operation op : pending) {
      if (op.record() != null) {
        records.add(op.record());
      }
    }
    List<float[]> vectors = RecordDocument.embeddings(records, embedder);
    int next = 0;
    for (Operation op : pending) {
      try {
        if (op.record() == null) {
          writer.deleteDocuments(op.key());
        } else {
          MemoryRecord r = op.record();
          byte[] encoded = op.encoded() != null ? op.encoded() : RecordCodec.encode(r);
          writer.updateDocument(
              op.key(), RecordDocument.of(r, vectors.get(next++), vectorField, encoded));
        }
      } catch (IllegalArgumentException e) {
        // Lucene refused a value: not the caller's input (which decoded fine) but this index.
        throw new IOException(
            "cannot index record " + op.key().text().replace('\u0000', '/') + ": " + e.getMessage(),
            e);
      }
    }
    done += pending.size();
    pending.clear();
    long now = System.nanoTime();
    if (now - lastReport >= TimeUnit.SECONDS.toNanos(PROGRESS_SECONDS)) {
      lastReport = now;
      long n = done;
      double seconds = (now - started) / 1e9;
      LOG.log(
          Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "lucene-hnsw: %s: %,d%s records after %.0f s (%,.0f/s)",
                  what,
                  n,
                  total < 0 ? "" : String.format(Locale.ROOT, " of %,d", total),
                  seconds,
                  n / seconds));
    }
  }
}
