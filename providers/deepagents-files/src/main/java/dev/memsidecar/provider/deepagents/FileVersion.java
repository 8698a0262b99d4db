package dev.memsidecar.provider.deepagents;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ListCursor;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.toolkit.HybridIndex;
import dev.memsidecar.toolkit.HybridScore;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One version of a namespace's memory file as this store last saw it on disk: its text, its parsed
 * records (or why they cannot be read), and what is derived from them lazily (list order, search
 * index, etag). Immutable but for those lazy, idempotent caches and {@link #verifiedAtMillis}, so
 * any number of threads may read it; only its search index may change later, when the version that
 * supersedes it takes the index over ({@link #takeOverIndex}).
 */
final class FileVersion {

  /**
   * What identifies a file's version without reading it: modification time, size and file key (the
   * inode on Unix, which changes when an editor replaces the file).
   */
  record Stamp(FileTime modified, long size, Object fileKey) {
    static Stamp of(BasicFileAttributes a) {
      return new Stamp(a.lastModifiedTime(), a.size(), a.fileKey());
    }
  }

  private final Stamp stamp;
  private final String text;
  private final MemoryMarkdown.Document document;
  private final MemoryException problem;
  private volatile long verifiedAtMillis;

  private volatile List<MemoryRecord> newestFirst;
  private volatile HybridIndex index;
  private volatile HybridIndex carried;
  private volatile String etag;

  /**
   * @param stamp the file's stamp, {@code null} when it does not exist
   * @param text its text ({@code ""} when it does not exist), or {@code null} when it could not be
   *     read; then {@code problem} says why
   * @param document its records, or {@code null} when {@code problem} says why not
   * @param verifiedAtMillis wall-clock time, taken before the file was read, at which {@code text}
   *     was known to be the file's content
   * @param previous the version this one follows, whose embeddings it may reuse; may be null
   */
  FileVersion(
      Stamp stamp,
      String text,
      MemoryMarkdown.Document document,
      MemoryException problem,
      long verifiedAtMillis,
      FileVersion previous) {
    this.stamp = stamp;
    this.text = text;
    this.document = document;
    this.problem = problem;
    this.verifiedAtMillis = verifiedAtMillis;
    this.carried = previous == null ? null : previous.indexForNext();
  }

  Stamp stamp() {
    return stamp;
  }

  boolean exists() {
    return stamp != null;
  }

  /** The file's text, or null when it could not be read. */
  String text() {
    return text;
  }

  long verifiedAtMillis() {
    return verifiedAtMillis;
  }

  void verifiedAt(long millis) {
    verifiedAtMillis = millis;
  }

  /**
   * Whether this version can be trusted to be the file's content when the file's stamp is still
   * {@code current}, without reading it. Not when the stamp differs, and not when the file was
   * modified so shortly before it was last read ({@code racyMillis}, at least the file system's
   * time granularity) that a later change could have kept the same modification time and size.
   */
  boolean trustedFor(Stamp current, long racyMillis) {
    if (!Objects.equals(stamp, current)) {
      return false;
    }
    return stamp == null || stamp.modified().toMillis() < verifiedAtMillis - racyMillis;
  }

  /** The parsed records; throws why they cannot be read. */
  MemoryMarkdown.Document document() {
    if (document == null) {
      throw problem;
    }
    return document;
  }

  /** The file as {@link dev.memsidecar.api.MemoryStore#readFile} returns it. */
  MemoryFile asMemoryFile() {
    if (stamp == null) {
      return MemoryFile.absent();
    }
    if (text == null) {
      throw problem;
    }
    return new MemoryFile(text, etag(), updateTime());
  }

  /** {@link MemoryFile#etagOf} of the text; of {@code ""} when the file does not exist. */
  String etag() {
    String e = etag;
    if (e == null) {
      if (text == null) {
        throw problem;
      }
      e = MemoryFile.etagOf(text);
      etag = e;
    }
    return e;
  }

  Instant updateTime() {
    return stamp == null ? null : stamp.modified().toInstant();
  }

  /** All records, newest first (create time, then id, descending). */
  List<MemoryRecord> newestFirst() {
    List<MemoryRecord> out = newestFirst;
    if (out == null) {
      List<MemoryRecord> sorted = new ArrayList<>(document().entries().size());
      for (MemoryMarkdown.Entry e : document().entries()) {
        sorted.add(e.record());
      }
      sorted.sort(ListCursor.NEWEST_FIRST);
      out = List.copyOf(sorted);
      newestFirst = out;
    }
    return out;
  }

  /**
   * The search index of the ACTIVE records, built on first use. It embeds only the records whose
   * content or context differ from the index of the version this one follows, so a file re-read
   * after a person's edit re-embeds just the edited entries.
   */
  HybridIndex index(Embedder embedder) {
    HybridIndex out = index;
    if (out == null) {
      synchronized (this) {
        out = index;
        if (out == null) {
          out =
              new HybridIndex(embedder.dimensions(), HybridScore.meaningWeightFor(embedder.name()));
          List<MemoryRecord> toEmbed = new ArrayList<>();
          for (MemoryMarkdown.Entry e : document().entries()) {
            MemoryRecord r = e.record();
            if (r.status() == MemoryStatus.ACTIVE) {
              float[] vector = carried == null ? null : carried.vectorIfSameText(r);
              if (vector != null) {
                out.put(r, vector);
              } else {
                toEmbed.add(r);
              }
            }
          }
          // One embedder call for all the new texts: a model embeds them in batches.
          List<float[]> vectors =
              embedder.embedAll(toEmbed.stream().map(MemoryRecord::indexedText).toList());
          for (int i = 0; i < toEmbed.size(); i++) {
            out.put(toEmbed.get(i), Embedder.unit(vectors.get(i)));
          }
          index = out;
          carried = null; // the index holds what is still needed
        }
      }
    }
    return out;
  }

  /**
   * Gives this version {@code previous}'s search index, when that one is built, updated for the one
   * record the two versions' records differ in: the record with {@code id} indexed anew, or dropped
   * when it is gone or not ACTIVE. So a search after each of the store's own writes costs at most
   * one record's embedding and no rebuild. The index is taken over, not copied: {@code previous}
   * must be superseded by this version (a search still running on it may see the change), and this
   * version must not be shared yet.
   */
  void takeOverIndex(FileVersion previous, String id, Embedder embedder) {
    HybridIndex shared = previous.index;
    if (shared == null) {
      return; // built on first search, reusing the carried embeddings
    }
    MemoryRecord r = document().record(id);
    if (r != null && r.status() == MemoryStatus.ACTIVE) {
      float[] vector = shared.vectorIfSameText(r);
      if (vector == null) {
        try {
          vector = Embedder.unit(embedder.embed(r.indexedText()));
        } catch (RuntimeException e) {
          // The write has landed; the search that builds this version's index reports the failure.
          return;
        }
      }
      shared.put(r, vector);
    } else {
      shared.remove(id);
    }
    index = shared;
    carried = null;
  }

  /** The index a following version may take embeddings from, or null. */
  private HybridIndex indexForNext() {
    // carried before index: index is set before carried is cleared, so one of them is seen.
    HybridIndex c = carried;
    HybridIndex i = index;
    return i != null ? i : c;
  }
}
