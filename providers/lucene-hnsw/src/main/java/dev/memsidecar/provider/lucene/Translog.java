package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.apache.lucene.util.IOUtils;

/**
 * The write-ahead log of one store: every put and delete is appended here and fsynced before it is
 * acknowledged, so the Lucene index itself need only be committed now and then (as Elasticsearch's
 * translog with {@code index.translog.durability: request}).
 *
 * <p><b>Files.</b> The log is a sequence of <i>generations</i>, files {@code translog-<n>.tlog} in
 * one directory, {@code n} counting up from 1. Each starts with a {@value #FILE_HEADER}-byte header
 * (magic {@code MSTL}, format version, its generation, CRC32C of those) and is created whole: the
 * header is written and fsynced under a temporary name, then renamed, and the directory fsynced.
 * Then come entries, each {@code magic (4) | length (4) | CRC32C (4) | body (length)}, the checksum
 * covering length and body; the body is {@code operation (1) | synced (8) | payload}. {@code
 * synced} is how many bytes of this generation were on stable storage when the entry was written:
 * everything before that offset had been fsynced, so a later entry vouches for it (see Reading).
 * The payload is opaque here: the store writes a record's {@link RecordCodec} bytes for a put, the
 * record's key for a delete. All integers are big-endian.
 *
 * <p><b>Writing.</b> Writers {@link #append} an entry to an in-memory queue and get its sequence
 * number (0, 1, 2, ... for this log's life); one thread at a time calls {@link #take} and {@link
 * #write}, which appends every queued entry to the current generation with one write and fsyncs it
 * ({@link GroupCommit} makes that one thread and lets concurrent writers share the fsync). {@link
 * #roll} closes the current generation and starts the next; it may run on another thread, between
 * two writes. After the store commits its index it {@link #trimBelow trims} the generations the
 * commit covers. When a write fails the log is failed for good: every later call fails with the
 * first error, as the file may now end in a partial write and, on Linux, a failed fsync may have
 * dropped the data it was to make durable (reopen the store; as Elasticsearch fails its engine).
 *
 * <p><b>Reading.</b> {@link #open} replays the generations from the one the last index commit
 * names, entry by entry, in order. An entry that cannot be read (cut short, a bad magic or length,
 * a checksum that fails) ends the log if it is in the last generation and no later valid entry of
 * that generation vouches for its offset: it is the torn tail of a write in flight at a crash,
 * never acknowledged. It is dropped and the file truncated before it, with a warning. Anywhere else
 * it is corruption of data once durable, and {@link #open} fails with {@link CorruptedException}
 * naming the file and the offset. A missing generation, a bad file header or a payload the store
 * cannot decode are corruption too. Limit: a bit flip in the entries of the very last write, which
 * nothing later vouches for, cannot be told from a torn write and is dropped as one.
 *
 * <p>Thread-safety: {@link #append} from any thread; {@link #take} and {@link #write} from one
 * thread at a time; {@link #roll}, {@link #trimBelow} and {@link #close} from any thread.
 */
final class Translog implements Closeable {
  /** An entry's operation: a record's {@link RecordCodec} bytes follow. */
  static final byte PUT = 1;

  /** An entry's operation: a record's key bytes follow. */
  static final byte DELETE = 2;

  static final int FILE_MAGIC = 0x4D53544C; // "MSTL"
  static final int FILE_VERSION = 1;
  static final int FILE_HEADER = 20;
  static final int ENTRY_MAGIC = 0x7E4C4F47; // "~LOG"
  static final int ENTRY_HEADER = 12;

  /** Operation and {@code synced}: the body bytes before the payload. */
  static final int BODY_PREFIX = 9;

  /** The largest entry body accepted: far above any record the API admits. */
  static final int MAX_BODY = 256 << 20;

  /** The largest payload an entry takes. */
  static final int MAX_PAYLOAD = MAX_BODY - BODY_PREFIX;

  private static final String PREFIX = "translog-";
  private static final String SUFFIX = ".tlog";
  private static final String TEMPORARY = ".tmp";
  private static final Pattern NAME = Pattern.compile("translog-(\\d{1,18})\\.tlog");
  private static final System.Logger LOG = System.getLogger(Translog.class.getName());

  /** Applies one replayed entry to the index. */
  interface Replayer {
    /**
     * Applies the operation {@code op} with its payload {@code bytes[offset..offset+length)}.
     *
     * @throws IllegalArgumentException if the payload cannot be decoded: {@link #open} reports the
     *     entry as corrupt
     */
    void apply(byte op, byte[] bytes, int offset, int length) throws IOException;
  }

  /** The log is corrupt: names the file and the offset. */
  static final class CorruptedException extends IOException {
    private final transient Path file;
    private final long offset;

    CorruptedException(Path file, long offset, String what, Throwable cause) {
      super("translog " + file + " is corrupt at offset " + offset + ": " + what, cause);
      this.file = file;
      this.offset = offset;
    }

    Path file() {
      return file;
    }

    long offset() {
      return offset;
    }
  }

  /** What {@link #open} found. */
  record Recovery(int generations, long operations, long droppedBytes, String droppedAt) {}

  /** Entries {@link #take} took from the queue, for {@link #write}. */
  static final class Batch {
    private final List<byte[]> bodies;
    private final long lastSeq;

    private Batch(List<byte[]> bodies, long lastSeq) {
      this.bodies = bodies;
      this.lastSeq = lastSeq;
    }

    /** The sequence number of the batch's last entry; -1 before the first entry. */
    long lastSeq() {
      return lastSeq;
    }
  }

  private final Path directory;
  private final Recovery recovery;

  // The queue. Guarded by queueLock.
  private final ReentrantLock queueLock = new ReentrantLock();
  private List<byte[]> queue = new ArrayList<>();
  private long nextSeq;
  private long appendedBytes;

  // The current generation. Guarded by ioLock.
  private final ReentrantLock ioLock = new ReentrantLock();
  private long generation;
  private FileChannel channel;
  private long position;
  private volatile long durableSeq = -1;
  private volatile IOException failure;
  private volatile boolean closed;

  private Translog(Path directory, long generation, FileChannel channel, Recovery recovery) {
    this.directory = directory;
    this.generation = generation;
    this.channel = channel;
    this.position = FILE_HEADER;
    this.recovery = recovery;
  }

  /**
   * Opens the log in {@code directory} (creating it if needed), replays into {@code replayer} the
   * generations from {@code committedGeneration} on, in order, and starts a new generation after
   * every one there is, so new entries never follow a torn tail. Generations before {@code
   * committedGeneration} are left for {@link #trimBelow}.
   *
   * @param committedGeneration the generation the index's last commit names: every operation of
   *     older generations is in the index; -1 when the commit names none (a new index, or one
   *     written before this log existed), which replays every generation there is
   * @throws CorruptedException if a generation is missing, or corrupt before its tail
   */
  static Translog open(Path directory, long committedGeneration, Replayer replayer)
      throws IOException {
    requireNonNull(directory, "directory is null");
    requireNonNull(replayer, "replayer is null");
    Files.createDirectories(directory);
    TreeMap<Long, Path> generations = new TreeMap<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        Matcher m = NAME.matcher(name);
        if (m.matches()) {
          generations.put(Long.parseLong(m.group(1)), f);
        } else if (name.startsWith(PREFIX) && name.endsWith(TEMPORARY)) {
          Files.delete(f); // a generation a crash interrupted before its rename
        }
      }
    }
    long from = committedGeneration >= 0 ? committedGeneration : 0;
    List<Long> replay = new ArrayList<>(generations.tailMap(from, true).keySet());
    if (committedGeneration >= 0 && (replay.isEmpty() || replay.get(0) != committedGeneration)) {
      throw missing(directory, committedGeneration, committedGeneration);
    }
    for (int i = 1; i < replay.size(); i++) {
      if (replay.get(i) != replay.get(i - 1) + 1) {
        throw missing(directory, replay.get(i - 1) + 1, replay.get(0));
      }
    }
    long operations = 0;
    long dropped = 0;
    String droppedAt = null;
    for (int i = 0; i < replay.size(); i++) {
      long g = replay.get(i);
      Path file = generations.get(g);
      Replayed r = replayGeneration(file, g, i == replay.size() - 1, replayer);
      operations += r.operations;
      if (r.validEnd >= 0) {
        dropped = r.size - r.validEnd;
        droppedAt = file + " at offset " + r.validEnd;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
          ch.truncate(r.validEnd);
          ch.force(true);
        }
        long n = dropped;
        String at = droppedAt;
        LOG.log(
            System.Logger.Level.WARNING,
            () ->
                "lucene-hnsw: dropped the torn tail of the write-ahead log, "
                    + n
                    + " bytes from "
                    + at
                    + ": a write in flight when the process stopped, never acknowledged");
      }
    }
    long next =
        Math.max(generations.isEmpty() ? 0 : generations.lastKey(), committedGeneration) + 1;
    FileChannel channel = create(directory, next);
    return new Translog(
        directory, next, channel, new Recovery(replay.size(), operations, dropped, droppedAt));
  }

  private static CorruptedException missing(Path directory, long g, long from) {
    return new CorruptedException(
        directory.resolve(fileName(g)),
        0,
        "generation "
            + g
            + " is missing: replaying the log needs every generation from "
            + from
            + " on",
        null);
  }

  /** What {@link #open} replayed and dropped. */
  Recovery recovery() {
    return recovery;
  }

  /** The directory of the generations. */
  Path directory() {
    return directory;
  }

  /**
   * Queues an entry for the next {@link #write}.
   *
   * @return its sequence number
   * @throws IOException if the log is closed or failed
   */
  long append(byte op, byte[] payload) throws IOException {
    if (payload.length > MAX_PAYLOAD) {
      throw new IllegalArgumentException(
          "a log entry holds at most " + MAX_PAYLOAD + " bytes: " + payload.length);
    }
    byte[] body = new byte[BODY_PREFIX + payload.length];
    body[0] = op;
    System.arraycopy(payload, 0, body, BODY_PREFIX, payload.length);
    queueLock.lock();
    try {
      ensureUsable();
      queue.add(body);
      appendedBytes += ENTRY_HEADER + body.length;
      return nextSeq++;
    } finally {
      queueLock.unlock();
    }
  }

  /** How many bytes have been appended in this log's life; grows with every {@link #append}. */
  long appendedBytes() {
    queueLock.lock();
    try {
      return appendedBytes;
    } finally {
      queueLock.unlock();
    }
  }

  /** The sequence number of the last entry appended; -1 before the first. */
  long lastSeq() {
    queueLock.lock();
    try {
      return nextSeq - 1;
    } finally {
      queueLock.unlock();
    }
  }

  /** The highest sequence number {@link #write} has made durable; -1 before the first. */
  long durableSeq() {
    return durableSeq;
  }

  /** Takes every queued entry, for {@link #write}. */
  Batch take() {
    queueLock.lock();
    try {
      List<byte[]> taken = queue;
      queue = new ArrayList<>();
      return new Batch(taken, nextSeq - 1);
    } finally {
      queueLock.unlock();
    }
  }

  /**
   * Appends {@code batch} to the current generation with one write and fsyncs it.
   *
   * @return the highest sequence number now durable
   * @throws IOException if the write or the fsync failed; the log is then failed for good
   */
  long write(Batch batch) throws IOException {
    ioLock.lock();
    try {
      ensureUsable();
      if (batch.bodies.isEmpty()) {
        return durableSeq;
      }
      int size = 0;
      for (byte[] body : batch.bodies) {
        size += ENTRY_HEADER + body.length;
      }
      ByteBuffer out = ByteBuffer.allocate(size);
      CRC32C crc = new CRC32C();
      for (byte[] body : batch.bodies) {
        ByteBuffer.wrap(body, 1, 8).putLong(position);
        out.putInt(ENTRY_MAGIC);
        int lengthAt = out.position();
        out.putInt(body.length);
        crc.reset();
        crc.update(out.array(), lengthAt, 4);
        crc.update(body, 0, body.length);
        out.putInt((int) crc.getValue());
        out.put(body);
      }
      out.flip();
      try {
        while (out.hasRemaining()) {
          channel.write(out);
        }
        channel.force(false);
      } catch (IOException | RuntimeException e) {
        throw fail(e);
      }
      position += size;
      durableSeq = Math.max(durableSeq, batch.lastSeq);
      return durableSeq;
    } finally {
      ioLock.unlock();
    }
  }

  /**
   * Closes the current generation and starts the next. Every entry written before the call is in an
   * older generation; entries still queued go to the new one. If the new generation cannot be
   * created, the current one stays current and the log usable.
   *
   * @return the new generation
   */
  long roll() throws IOException {
    ioLock.lock();
    try {
      ensureUsable();
      FileChannel next = create(directory, generation + 1);
      FileChannel old = channel;
      channel = next;
      generation++;
      position = FILE_HEADER;
      try {
        old.close();
      } catch (IOException e) {
        // Everything written to it was fsynced; nothing more goes there.
        LOG.log(System.Logger.Level.WARNING, () -> "lucene-hnsw: closing a log generation", e);
      }
      return generation;
    } finally {
      ioLock.unlock();
    }
  }

  /** The generation new entries are written to. */
  long generation() {
    ioLock.lock();
    try {
      return generation;
    } finally {
      ioLock.unlock();
    }
  }

  /**
   * Deletes every generation older than {@code keep}: call once an index commit holds all their
   * operations. A deletion a crash undoes is harmless: {@link #open} never replays generations the
   * commit covers.
   */
  void trimBelow(long keep) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, PREFIX + "*" + SUFFIX)) {
      for (Path f : files) {
        Matcher m = NAME.matcher(f.getFileName().toString());
        if (m.matches() && Long.parseLong(m.group(1)) < keep) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  /** Closes the current generation; queued entries not yet written are lost. Idempotent. */
  @Override
  public void close() throws IOException {
    ioLock.lock();
    try {
      closed = true;
      channel.close();
    } finally {
      ioLock.unlock();
    }
  }

  // ---- plumbing

  static String fileName(long generation) {
    return PREFIX + generation + SUFFIX;
  }

  private void ensureUsable() throws IOException {
    if (closed) {
      throw new IOException("the write-ahead log in " + directory + " is closed");
    }
    IOException f = failure;
    if (f != null) {
      throw new IOException(
          "the write-ahead log in " + directory + " failed earlier; reopen the store: " + f, f);
    }
  }

  private IOException fail(Exception e) {
    IOException io = e instanceof IOException x ? x : new IOException(e);
    if (failure == null) {
      failure = io;
    }
    return io;
  }

  /** Creates generation {@code g} whole (header fsynced, renamed, directory fsynced). */
  private static FileChannel create(Path directory, long g) throws IOException {
    Path file = directory.resolve(fileName(g));
    Path tmp = directory.resolve(fileName(g) + TEMPORARY);
    ByteBuffer header = ByteBuffer.allocate(FILE_HEADER);
    header.putInt(FILE_MAGIC).putInt(FILE_VERSION).putLong(g);
    CRC32C crc = new CRC32C();
    crc.update(header.array(), 0, FILE_HEADER - 4);
    header.putInt((int) crc.getValue());
    header.flip();
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      while (header.hasRemaining()) {
        ch.write(header);
      }
      ch.force(true);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    IOUtils.fsync(directory, true);
    FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE);
    ch.position(FILE_HEADER);
    return ch;
  }

  /** What one generation held: {@code validEnd} is -1 unless a torn tail starts there. */
  private record Replayed(long operations, long size, long validEnd) {}

  private static Replayed replayGeneration(Path file, long g, boolean last, Replayer replayer)
      throws IOException {
    long fileSize = Files.size(file);
    if (fileSize > Integer.MAX_VALUE - 64) {
      throw new CorruptedException(file, 0, "a generation over 2 GiB cannot be replayed", null);
    }
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (bytes.length < FILE_HEADER) {
      throw new CorruptedException(file, 0, "the file header is cut short", null);
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, FILE_HEADER - 4);
    if (in.getInt(0) != FILE_MAGIC
        || in.getInt(FILE_HEADER - 4) != (int) crc.getValue()
        || in.getLong(8) != g) {
      throw new CorruptedException(file, 0, "bad file header", null);
    }
    if (in.getInt(4) != FILE_VERSION) {
      throw new CorruptedException(file, 4, "unknown format version " + in.getInt(4), null);
    }
    long operations = 0;
    int pos = FILE_HEADER;
    while (pos < bytes.length) {
      int length = validEntryAt(bytes, pos);
      if (length < 0) {
        String why = describeBadEntry(bytes, pos);
        if (!last) {
          throw new CorruptedException(
              file, pos, why + " in a generation that is not the last", null);
        }
        int vouched = vouchedEntryAfter(bytes, pos);
        if (vouched >= 0) {
          throw new CorruptedException(
              file,
              pos,
              why + ", yet the entry at offset " + vouched + " was written after it was durable",
              null);
        }
        return new Replayed(operations, bytes.length, pos);
      }
      int body = pos + ENTRY_HEADER;
      try {
        replayer.apply(bytes[body], bytes, body + BODY_PREFIX, length - BODY_PREFIX);
      } catch (IllegalArgumentException e) {
        throw new CorruptedException(file, pos, "the entry does not decode: " + e.getMessage(), e);
      }
      operations++;
      pos = body + length;
    }
    return new Replayed(operations, bytes.length, -1);
  }

  /** The body length of the valid entry at {@code pos}, or -1 if none is there. */
  private static int validEntryAt(byte[] bytes, int pos) {
    if (bytes.length - pos < ENTRY_HEADER) {
      return -1;
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (in.getInt(pos) != ENTRY_MAGIC) {
      return -1;
    }
    int length = in.getInt(pos + 4);
    if (length < BODY_PREFIX || length > MAX_BODY || length > bytes.length - pos - ENTRY_HEADER) {
      return -1;
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, pos + 4, 4);
    crc.update(bytes, pos + ENTRY_HEADER, length);
    if (in.getInt(pos + 8) != (int) crc.getValue()) {
      return -1;
    }
    long synced = in.getLong(pos + ENTRY_HEADER + 1);
    if (synced < FILE_HEADER || synced > pos) {
      return -1; // an entry cannot vouch for bytes after itself
    }
    return length;
  }

  /** Why the entry at {@code pos} is not valid, for messages. */
  private static String describeBadEntry(byte[] bytes, int pos) {
    int left = bytes.length - pos;
    if (left < ENTRY_HEADER) {
      return "an entry header cut short (" + left + " of " + ENTRY_HEADER + " bytes)";
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (in.getInt(pos) != ENTRY_MAGIC) {
      return String.format(Locale.ROOT, "no entry magic (0x%08x)", in.getInt(pos));
    }
    int length = in.getInt(pos + 4);
    if (length < BODY_PREFIX || length > MAX_BODY) {
      return "an impossible entry length " + length;
    }
    if (length > left - ENTRY_HEADER) {
      return "an entry of " + length + " bytes cut short at " + (left - ENTRY_HEADER);
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, pos + 4, 4);
    crc.update(bytes, pos + ENTRY_HEADER, length);
    if (in.getInt(pos + 8) != (int) crc.getValue()) {
      return "an entry whose checksum does not match";
    }
    return "an entry claiming durable bytes after itself";
  }

  /**
   * The offset of a valid entry after {@code bad} written when {@code bad} was already durable (its
   * {@code synced} is past {@code bad}), or -1 if there is none. Only such an entry proves that the
   * bytes at {@code bad} were once good and are now damaged.
   */
  private static int vouchedEntryAfter(byte[] bytes, int bad) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    for (int pos = bad + 1; pos <= bytes.length - ENTRY_HEADER - BODY_PREFIX; pos++) {
      if (in.getInt(pos) == ENTRY_MAGIC
          && validEntryAt(bytes, pos) >= 0
          && in.getLong(pos + ENTRY_HEADER + 1) > bad) {
        return pos;
      }
    }
    return -1;
  }

  @Override
  public String toString() {
    return "Translog[" + directory + "]";
  }
}
