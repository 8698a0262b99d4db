package dev.memsidecar.provider.deepagents;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.ListCursor;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.DurableFiles;
import dev.memsidecar.toolkit.HybridIndex;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The records of one profile as entries of markdown files, one file per namespace ({@link
 * NamespacePaths} says where, {@link MemoryMarkdown} how records are written in it).
 *
 * <p><b>The file is the truth.</b> Every call reads the records from the namespace's file, through
 * a cache of parsed versions keyed by the file's modification time, size and file key: a file a
 * person or an agent edited on disk is re-read on the next call. A file modified within {@value
 * #RACY_MILLIS} ms before it was last read is compared by content instead, since a quick second
 * edit of the same size could keep its modification time. At most {@value #CACHED_FILES} files and
 * {@value #CACHED_CHARS} characters stay cached, least recently used dropped first.
 *
 * <p><b>Writes.</b> {@link #put} and {@link #delete} take the current file, rewrite only the entry
 * concerned (other entries and the preamble keep their bytes and their parsed records) and replace
 * the file with {@link DurableFiles#replace}: a temporary file forced to disk and renamed over it,
 * then the directory forced. {@code put} first checks that the entry it writes reads back as the
 * record exactly, replaces the entry where it is or appends one. When a write returns it survives
 * {@code kill -9} and power loss; a crash leaves the old file or the new one. A file over {@value
 * #MAX_FILE_BYTES} bytes is refused with RESOURCE_EXHAUSTED naming its size ({@code delete} only
 * shrinks a file and is always allowed).
 *
 * <p><b>Search</b> ranks with the toolkit's {@link HybridIndex}, one per file version, built on the
 * first search of that version from the ACTIVE records (embedding only entries whose content or
 * context changed since the version before) and carried over by the store's own writes, which
 * update it for the one record they change.
 *
 * <p><b>Files.</b> {@link #writeFile} replaces the whole file when the caller's etag is still the
 * current one (ABORTED otherwise); afterwards the records are the entries of the new text. Text
 * that is not a valid memory file (a malformed marker, a duplicate id) is refused with
 * INVALID_ARGUMENT naming the line, so an edit cannot silently drop records. A file made malformed
 * on disk by hand still reads with {@link #readFile} and can be fixed with {@link #writeFile}; the
 * record calls fail with FAILED_PRECONDITION naming the line until then.
 *
 * <p><b>Thread-safety.</b> All methods may be called from many threads. Writes to one file (and
 * re-reads of it) are serialized by one of {@value #LOCK_STRIPES} lock stripes; reads of a cached
 * version take no lock. The data directory is locked against other processes ({@value #LOCK_FILE})
 * while the store is open. After {@link #close()} every call fails with FAILED_PRECONDITION.
 */
final class DeepAgentsFilesStore implements MemoryStore {
  static final int MAX_FILE_BYTES = 1 << 20;
  static final long MAX_READ_BYTES = 16L << 20;
  static final int LOCK_STRIPES = 64;
  static final int CACHED_FILES = 128;
  static final long CACHED_CHARS = 32L << 20;
  static final long RACY_MILLIS = 3000;
  static final String LOCK_FILE = ".deepagents-files.lock";

  private static final System.Logger LOG = System.getLogger(DeepAgentsFilesStore.class.getName());

  private final String profileId;
  private final NamespacePaths paths;
  private final Embedder embedder;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final ReentrantLock[] stripes = new ReentrantLock[LOCK_STRIPES];
  private final LinkedHashMap<Namespace, FileVersion> cache = new LinkedHashMap<>(64, 0.75f, true);
  private long cachedChars; // guarded by cache
  private volatile boolean closed;

  private DeepAgentsFilesStore(
      String profileId,
      NamespacePaths paths,
      Embedder embedder,
      FileChannel lockChannel,
      FileLock lock) {
    this.profileId = profileId;
    this.paths = paths;
    this.embedder = embedder;
    this.lockChannel = lockChannel;
    this.lock = lock;
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /**
   * Opens the store in {@code dataDirectory}: creates it, locks it against other processes and
   * deletes temporary files a crash left.
   *
   * @throws MemoryException UNAVAILABLE when the directory cannot be used or is locked
   */
  static DeepAgentsFilesStore open(String profileId, Path dataDirectory, Embedder embedder) {
    requireNonNull(profileId, "profileId is null");
    requireNonNull(dataDirectory, "dataDirectory is null");
    requireNonNull(embedder, "embedder is null");
    NamespacePaths paths = new NamespacePaths(dataDirectory, profileId);
    Path root = paths.root();
    FileChannel channel = null;
    try {
      Files.createDirectories(root);
      channel =
          FileChannel.open(
              root.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw MemoryException.unavailable(
            "deepagents-files: data directory "
                + root
                + " of profile '"
                + profileId
                + "' is in use by another open store",
            null);
      }
      int removed = DurableFiles.removeStrayTemporaries(root);
      if (removed > 0) {
        LOG.log(
            Level.INFO,
            () ->
                "deepagents-files: removed "
                    + removed
                    + " temporary files a crash left in "
                    + root);
      }
      LOG.log(Level.INFO, () -> "deepagents-files: profile '" + profileId + "' opened " + root);
      return new DeepAgentsFilesStore(profileId, paths, embedder, channel, lock);
    } catch (IOException e) {
      closeQuietly(channel);
      throw MemoryException.unavailable(
          "deepagents-files: cannot open data directory "
              + root
              + " of profile '"
              + profileId
              + "': "
              + e,
          e);
    } catch (RuntimeException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  @Override
  public void put(MemoryRecord record) {
    requireNonNull(record, "record is null");
    Namespace namespace = record.namespace();
    int bad = unpairedSurrogate(record.content());
    if (bad >= 0) {
      throw MemoryException.invalidArgument(
          "content",
          "record '"
              + record.id()
              + "': content has an unpaired surrogate at index "
              + bad
              + ", which UTF-8 cannot hold");
    }
    ensureOpen();
    Path file = paths.fileOf(namespace);
    ReentrantLock stripe = stripe(namespace);
    stripe.lock();
    try {
      FileVersion current = reload(namespace, file);
      MemoryMarkdown.Document next;
      try {
        next =
            current.document().with(record, MemoryMarkdown.newFilePreamble(profileId), namespace);
      } catch (IllegalStateException e) {
        // A record this format cannot hold exactly; nothing was written.
        throw MemoryException.internal(
            "deepagents-files: record '" + record.id() + "' cannot be written exactly", e);
      }
      write(namespace, file, next, "record", current, record.id());
    } finally {
      stripe.unlock();
    }
  }

  @Override
  public Optional<MemoryRecord> get(Namespace namespace, String id) {
    requireNonNull(namespace, "namespace is null");
    Ids.require("id", id);
    ensureOpen();
    return Optional.ofNullable(current(namespace).document().record(id));
  }

  @Override
  public Page list(Namespace namespace, ListQuery query) {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(query, "query is null");
    ListCursor after = query.cursor() == null ? null : ListCursor.decode(query.cursor());
    ensureOpen();
    List<MemoryRecord> all = current(namespace).newestFirst();
    int from = 0;
    if (after != null) {
      // First index whose record comes after the cursor: a binary search on the sorted list.
      int lo = 0;
      int hi = all.size();
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (after.precedes(all.get(mid))) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      from = lo;
    }
    List<MemoryRecord> page = new ArrayList<>(Math.min(query.pageSize(), all.size() - from));
    for (int i = from; i < all.size(); i++) {
      MemoryRecord r = all.get(i);
      if (!query.includeInactive() && r.status() != MemoryStatus.ACTIVE) {
        continue;
      }
      if (page.size() == query.pageSize()) {
        return new Page(page, ListCursor.after(page.get(page.size() - 1)).encode());
      }
      page.add(r);
    }
    return new Page(page, null);
  }

  @Override
  public List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(query, "query is null");
    ensureOpen();
    float[] vector = query.unitVector(embedder);
    return current(namespace).index(embedder).search(query, vector);
  }

  @Override
  public boolean delete(Namespace namespace, String id) {
    requireNonNull(namespace, "namespace is null");
    Ids.require("id", id);
    ensureOpen();
    Path file = paths.fileOf(namespace);
    ReentrantLock stripe = stripe(namespace);
    stripe.lock();
    try {
      FileVersion current = reload(namespace, file);
      MemoryMarkdown.Document doc = current.document();
      if (doc.record(id) == null) {
        return false;
      }
      // Removing an entry only shrinks the file: allowed even when a person made it too big.
      write(namespace, file, doc.without(id), null, current, id);
      return true;
    } finally {
      stripe.unlock();
    }
  }

  /**
   * The namespaces whose memory file exists under the data directory (a walk of it). A file whose
   * path cannot be read back as a namespace (a component cut to a digest, see {@link
   * NamespacePaths}) is left out, and logged.
   */
  @Override
  public List<Namespace> namespaces() {
    ensureOpen();
    Path root = paths.root();
    String name = paths.fileOf(Namespace.of("x")).getFileName().toString();
    List<Namespace> out = new ArrayList<>();
    try (var walk = Files.walk(root)) {
      for (Iterator<Path> it = walk.iterator(); it.hasNext(); ) {
        Path p = it.next();
        if (!p.getFileName().toString().equals(name)) {
          continue;
        }
        Optional<Namespace> ns = paths.namespaceOf(p);
        if (ns.isPresent()) {
          out.add(ns.get());
        } else {
          LOG.log(Level.WARNING, () -> "deepagents-files: cannot tell the namespace of " + p);
        }
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      if (closed) {
        throw MemoryException.failedPrecondition(
            "deepagents-files store of profile '" + profileId + "' is closed");
      }
      throw MemoryException.unavailable(
          "deepagents-files: cannot list the memory files of profile '"
              + profileId
              + "': "
              + e.getClass().getSimpleName(),
          e);
    }
    return List.copyOf(out);
  }

  @Override
  public MemoryFile readFile(Namespace namespace) {
    requireNonNull(namespace, "namespace is null");
    ensureOpen();
    return current(namespace).asMemoryFile();
  }

  @Override
  public MemoryFile writeFile(Namespace namespace, String content, String expectedEtag) {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(content, "content is null");
    int bad = unpairedSurrogate(content);
    if (bad >= 0) {
      throw MemoryException.invalidArgument(
          "content",
          "content has an unpaired surrogate at index " + bad + ", which UTF-8 cannot hold");
    }
    ensureOpen();
    Path file = paths.fileOf(namespace);
    MemoryMarkdown.Document doc = parseNew(namespace, content);
    ReentrantLock stripe = stripe(namespace);
    stripe.lock();
    try {
      FileVersion current = reload(namespace, file);
      if (expectedEtag != null && !expectedEtag.isEmpty()) {
        String currentEtag = current.exists() ? current.etag() : MemoryFile.absent().etag();
        if (!expectedEtag.equals(currentEtag)) {
          throw MemoryException.aborted(
              "memory file "
                  + agentPath()
                  + " of namespace '"
                  + namespace
                  + "' has changed: expected etag "
                  + Ids.quote(expectedEtag)
                  + ", current etag '"
                  + currentEtag
                  + "'; read it again and reapply the edit");
        }
      }
      FileVersion written = write(namespace, file, doc, "content", current, null);
      return written.asMemoryFile();
    } finally {
      stripe.unlock();
    }
  }

  /** Releases the directory lock and the cache. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    synchronized (cache) {
      cache.clear();
      cachedChars = 0;
    }
    try {
      lock.release();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "deepagents-files: releasing the directory lock failed", e);
    }
    closeQuietly(lockChannel);
    LOG.log(
        Level.INFO, () -> "deepagents-files: profile '" + profileId + "' closed " + paths.root());
  }

  @Override
  public String toString() {
    return "DeepAgentsFilesStore[profile=" + profileId + ", dir=" + paths.root() + "]";
  }

  /** The file of {@code namespace}; for tests. */
  Path fileOf(Namespace namespace) {
    return paths.fileOf(namespace);
  }

  // ---- reading

  /** The namespace's file as it is on disk now, from the cache when that can be trusted. */
  private FileVersion current(Namespace namespace) {
    Path file = paths.fileOf(namespace);
    FileVersion cached = cached(namespace);
    if (cached != null && cached.trustedFor(stamp(file), RACY_MILLIS)) {
      return cached;
    }
    ReentrantLock stripe = stripe(namespace);
    stripe.lock();
    try {
      return reload(namespace, file);
    } finally {
      stripe.unlock();
    }
  }

  /** Like {@link #current} with the stripe held: reads and parses the file if it changed. */
  private FileVersion reload(Namespace namespace, Path file) {
    FileVersion cached = cached(namespace);
    // Taken before the stat and the read: the text read is the file's content at least as of now.
    long started = System.currentTimeMillis();
    FileVersion.Stamp stamp = stamp(file);
    if (cached != null && cached.trustedFor(stamp, RACY_MILLIS)) {
      return cached;
    }
    if (stamp == null) {
      FileVersion absent = parsed(namespace, null, "", started, cached);
      remember(namespace, absent);
      return absent;
    }
    if (stamp.size() > MAX_READ_BYTES) {
      MemoryException tooBig =
          MemoryException.resourceExhausted(
              "namespace",
              "memory file "
                  + agentPath()
                  + " of namespace '"
                  + namespace
                  + "' is "
                  + stamp.size()
                  + " bytes, too big to read (limit "
                  + MAX_READ_BYTES
                  + ")");
      FileVersion v = new FileVersion(stamp, null, null, tooBig, started, cached);
      remember(namespace, v);
      return v;
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      // Deleted between the stat and the read: it is absent now.
      FileVersion absent = parsed(namespace, null, "", started, cached);
      remember(namespace, absent);
      return absent;
    } catch (IOException e) {
      forget(namespace);
      throw unavailable("read", namespace, e);
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      MemoryException notUtf8 =
          MemoryException.failedPrecondition(
              "memory file "
                  + agentPath()
                  + " of namespace '"
                  + namespace
                  + "' is not valid UTF-8 text; replace it with writeFile");
      FileVersion v = new FileVersion(stamp, null, null, notUtf8, started, cached);
      remember(namespace, v);
      return v;
    }
    if (cached != null && Objects.equals(cached.stamp(), stamp) && text.equals(cached.text())) {
      cached.verifiedAt(started);
      return cached;
    }
    FileVersion v = parsed(namespace, stamp, text, started, cached);
    remember(namespace, v);
    return v;
  }

  /** A version of {@code text}, with the reason its records cannot be read if they cannot. */
  private FileVersion parsed(
      Namespace namespace,
      FileVersion.Stamp stamp,
      String text,
      long verifiedAt,
      FileVersion previous) {
    try {
      MemoryMarkdown.Document doc = MemoryMarkdown.parse(text, namespace, profileId);
      return new FileVersion(stamp, text, doc, null, verifiedAt, previous);
    } catch (MemoryMarkdown.MalformedMemoryFile e) {
      MemoryException problem =
          MemoryException.failedPrecondition(
              "memory file "
                  + agentPath()
                  + " of namespace '"
                  + namespace
                  + "' cannot be read as records: "
                  + e.getMessage()
                  + "; fix it on disk or replace it with writeFile");
      return new FileVersion(stamp, text, null, problem, verifiedAt, previous);
    }
  }

  private static FileVersion.Stamp stamp(Path file) {
    try {
      return FileVersion.Stamp.of(Files.readAttributes(file, BasicFileAttributes.class));
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      // Unreadable attributes: report a stamp no cached version has, forcing a (failing) read.
      return new FileVersion.Stamp(FileTime.fromMillis(0), -1, e);
    }
  }

  // ---- writing

  /** {@code text} parsed as the namespace's next file; INVALID_ARGUMENT naming the bad line. */
  private MemoryMarkdown.Document parseNew(Namespace namespace, String text) {
    try {
      return MemoryMarkdown.parse(text, namespace, profileId);
    } catch (MemoryMarkdown.MalformedMemoryFile e) {
      throw MemoryException.invalidArgument(
          "content",
          "memory file "
              + agentPath()
              + " of namespace '"
              + namespace
              + "' would not be valid: "
              + e.getMessage()
              + "; nothing was written");
    }
  }

  /**
   * Replaces the file with {@code doc}'s text and caches the new version. Stripe held.
   *
   * @param sizeField the request field named when the text is too big, or null to allow any size (a
   *     change that only shrinks the file)
   * @param changedId the id of the one record {@code doc} changes against {@code previous}, or null
   *     when it may change any
   */
  private FileVersion write(
      Namespace namespace,
      Path file,
      MemoryMarkdown.Document doc,
      String sizeField,
      FileVersion previous,
      String changedId) {
    String text = doc.text();
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (sizeField != null && bytes.length > MAX_FILE_BYTES) {
      throw MemoryException.resourceExhausted(
          sizeField,
          String.format(
              Locale.ROOT,
              "memory file %s of namespace '%s' would be %d bytes, over the limit of %d bytes"
                  + " (1 MiB)",
              agentPath(),
              namespace,
              bytes.length,
              MAX_FILE_BYTES));
    }
    long started = System.currentTimeMillis();
    try {
      DurableFiles.replace(paths.root(), file, bytes);
    } catch (IOException e) {
      forget(namespace); // the rename may have happened
      throw unavailable("write", namespace, e);
    }
    FileVersion.Stamp stamp = stamp(file);
    FileVersion written = new FileVersion(stamp, text, doc, null, started, previous);
    if (changedId != null) {
      written.takeOverIndex(previous, changedId, embedder);
    }
    remember(namespace, written);
    return written;
  }

  // ---- the cache

  private FileVersion cached(Namespace namespace) {
    synchronized (cache) {
      return cache.get(namespace);
    }
  }

  private void remember(Namespace namespace, FileVersion v) {
    if (closed) {
      return;
    }
    synchronized (cache) {
      FileVersion old = cache.put(namespace, v);
      cachedChars += chars(v) - (old == null ? 0 : chars(old));
      Iterator<Map.Entry<Namespace, FileVersion>> it = cache.entrySet().iterator();
      while ((cache.size() > CACHED_FILES || cachedChars > CACHED_CHARS) && cache.size() > 1) {
        Map.Entry<Namespace, FileVersion> eldest = it.next();
        cachedChars -= chars(eldest.getValue());
        it.remove();
      }
    }
  }

  private void forget(Namespace namespace) {
    synchronized (cache) {
      FileVersion old = cache.remove(namespace);
      if (old != null) {
        cachedChars -= chars(old);
      }
    }
  }

  private static long chars(FileVersion v) {
    return v.text() == null ? 0 : v.text().length();
  }

  // ---- helpers

  /** The path the agent knows the file by. */
  private String agentPath() {
    return "/memories/" + profileId + ".md";
  }

  private ReentrantLock stripe(Namespace namespace) {
    return stripes[Math.floorMod(namespace.hashCode(), stripes.length)];
  }

  private void ensureOpen() {
    if (closed) {
      throw MemoryException.failedPrecondition(
          "deepagents-files store of profile '" + profileId + "' is closed");
    }
  }

  private MemoryException unavailable(String operation, Namespace namespace, IOException e) {
    if (closed) {
      return MemoryException.failedPrecondition(
          "deepagents-files store of profile '" + profileId + "' is closed");
    }
    LOG.log(
        Level.WARNING,
        () -> "deepagents-files: " + operation + " of " + paths.fileOf(namespace) + " failed",
        e);
    return MemoryException.unavailable(
        "deepagents-files: "
            + operation
            + " of memory file "
            + agentPath()
            + " of namespace '"
            + namespace
            + "' failed: "
            + e.getClass().getSimpleName(),
        e);
  }

  /** Index of the first unpaired surrogate of {@code s}, or -1. */
  static int unpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i)) && MarkerJson.isUnpairedSurrogate(s, i)) {
        return i;
      }
    }
    return -1;
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.log(Level.DEBUG, "deepagents-files: close failed", e);
    }
  }
}
