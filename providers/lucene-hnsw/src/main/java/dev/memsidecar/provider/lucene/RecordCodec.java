package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The compact binary form of a {@link MemoryRecord} kept in each document's stored field; {@code
 * decode(encode(r))} equals {@code r} for every record, nanoseconds and odd strings included.
 *
 * <p>Layout: a version byte ({@value #VERSION}), then every component in declaration order. Strings
 * are a varint header {@code length << 1 | form} and then either UTF-8 bytes (form 0) or, for the
 * rare string holding an unpaired surrogate that UTF-8 cannot carry, its UTF-16 code units as two
 * bytes each (form 1). Lists and maps are a varint count then their strings (maps sorted by key, so
 * equal maps encode equally). Enums are their names, so reordering a Java enum never changes what a
 * stored record means. Floats are their raw IEEE bits. Instants are zig-zag varint epoch seconds
 * then varint nanoseconds, so every {@link Instant} round-trips; the expire time has a presence
 * byte first. Stateless and thread-safe.
 */
final class RecordCodec {
  static final int VERSION = 1;

  private RecordCodec() {}

  static byte[] encode(MemoryRecord r) {
    requireNonNull(r, "record is null");
    Out out = new Out(64 + 2 * (r.content().length() + r.context().length()));
    out.writeByte(VERSION);
    out.writeString(r.id());
    out.writeString(r.namespace().value());
    out.writeString(r.profile());
    out.writeString(r.kind().name());
    out.writeString(r.content());
    out.writeString(r.summary());
    out.writeString(r.context());
    out.writeFloat(r.confidence());
    out.writeStrings(r.tags());
    out.writeString(r.sensitivity());
    TreeMap<String, String> metadata = new TreeMap<>(r.metadata());
    out.writeVarLong(metadata.size());
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      out.writeString(e.getKey());
      out.writeString(e.getValue());
    }
    out.writeInstant(r.createTime());
    out.writeInstant(r.updateTime());
    out.writeFloat(r.gateScore());
    out.writeString(r.status().name());
    out.writeStrings(r.sourceRefs());
    out.writeString(r.validity().name());
    if (r.expireTime() == null) {
      out.writeByte(0);
    } else {
      out.writeByte(1);
      out.writeInstant(r.expireTime());
    }
    return out.toByteArray();
  }

  /**
   * The record encoded in {@code bytes[offset..offset+length)}.
   *
   * @throws IllegalArgumentException if they do not hold a record {@link #encode} wrote
   */
  static MemoryRecord decode(byte[] bytes, int offset, int length) {
    In in = new In(bytes, offset, length);
    int version = in.readByte();
    if (version != VERSION) {
      throw new IllegalArgumentException("unknown record encoding version " + version);
    }
    MemoryRecord.Builder b =
        MemoryRecord.builder()
            .id(in.readString())
            .namespace(Namespace.of(in.readString()))
            .profile(in.readString())
            .kind(MemoryKind.valueOf(in.readString()))
            .content(in.readString())
            .summary(in.readString())
            .context(in.readString())
            .confidence(in.readFloat())
            .tags(in.readStrings())
            .sensitivity(in.readString());
    int entries = in.readCount();
    Map<String, String> metadata = new LinkedHashMap<>();
    for (int i = 0; i < entries; i++) {
      metadata.put(in.readString(), in.readString());
    }
    b.metadata(metadata)
        .createTime(in.readInstant())
        .updateTime(in.readInstant())
        .gateScore(in.readFloat())
        .status(MemoryStatus.valueOf(in.readString()))
        .sourceRefs(in.readStrings())
        .validity(Validity.valueOf(in.readString()));
    int hasExpiry = in.readByte();
    if (hasExpiry == 1) {
      b.expireTime(in.readInstant());
    } else if (hasExpiry != 0) {
      throw new IllegalArgumentException("bad expire-time marker " + hasExpiry);
    }
    in.end();
    return b.build();
  }

  /** A growable byte buffer. */
  private static final class Out {
    private byte[] buf;
    private int len;

    Out(int capacity) {
      buf = new byte[Math.max(16, capacity)];
    }

    void writeByte(int b) {
      ensure(1);
      buf[len++] = (byte) b;
    }

    void writeVarLong(long v) {
      ensure(10);
      while ((v & ~0x7FL) != 0) {
        buf[len++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[len++] = (byte) v;
    }

    void writeFloat(float f) {
      int bits = Float.floatToRawIntBits(f);
      ensure(4);
      buf[len++] = (byte) (bits >>> 24);
      buf[len++] = (byte) (bits >>> 16);
      buf[len++] = (byte) (bits >>> 8);
      buf[len++] = (byte) bits;
    }

    void writeInstant(Instant t) {
      long s = t.getEpochSecond();
      writeVarLong((s << 1) ^ (s >> 63));
      writeVarLong(t.getNano());
    }

    void writeStrings(List<String> values) {
      writeVarLong(values.size());
      for (String v : values) {
        writeString(v);
      }
    }

    void writeString(String s) {
      if (isWellFormed(s)) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        writeVarLong((long) utf8.length << 1);
        ensure(utf8.length);
        System.arraycopy(utf8, 0, buf, len, utf8.length);
        len += utf8.length;
      } else {
        writeVarLong(((long) s.length() << 1) | 1);
        ensure(2 * s.length());
        for (int i = 0; i < s.length(); i++) {
          char c = s.charAt(i);
          buf[len++] = (byte) (c >>> 8);
          buf[len++] = (byte) c;
        }
      }
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, len);
    }

    private void ensure(int more) {
      if (len + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(len + more, buf.length * 2));
      }
    }

    /** Whether UTF-8 round-trips {@code s}: no unpaired surrogate. */
    private static boolean isWellFormed(String s) {
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
          if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
            return false;
          }
          i++;
        } else if (Character.isLowSurrogate(c)) {
          return false;
        }
      }
      return true;
    }
  }

  /** A bounds-checked reader over one encoded record. */
  private static final class In {
    private final byte[] buf;
    private final int limit;
    private int pos;

    In(byte[] buf, int offset, int length) {
      requireNonNull(buf, "bytes is null");
      if (offset < 0 || length < 0 || offset + length > buf.length) {
        throw new IllegalArgumentException("bad slice " + offset + "+" + length);
      }
      this.buf = buf;
      this.pos = offset;
      this.limit = offset + length;
    }

    int readByte() {
      need(1);
      return buf[pos++] & 0xFF;
    }

    long readVarLong() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int b = readByte();
        v |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return v;
        }
      }
      throw new IllegalArgumentException("varint too long at " + pos);
    }

    int readCount() {
      long n = readVarLong();
      if (n < 0 || n > limit - pos) {
        throw new IllegalArgumentException("bad count " + n + " at " + pos);
      }
      return (int) n;
    }

    float readFloat() {
      need(4);
      int bits =
          (buf[pos] & 0xFF) << 24
              | (buf[pos + 1] & 0xFF) << 16
              | (buf[pos + 2] & 0xFF) << 8
              | (buf[pos + 3] & 0xFF);
      pos += 4;
      return Float.intBitsToFloat(bits);
    }

    Instant readInstant() {
      long z = readVarLong();
      long seconds = (z >>> 1) ^ -(z & 1);
      long nanos = readVarLong();
      if (nanos < 0 || nanos > 999_999_999L) {
        throw new IllegalArgumentException("bad nanoseconds " + nanos);
      }
      return Instant.ofEpochSecond(seconds, nanos);
    }

    List<String> readStrings() {
      int n = readCount();
      List<String> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(readString());
      }
      return out;
    }

    String readString() {
      long header = readVarLong();
      long n = header >>> 1;
      if ((header & 1) == 0) {
        need(n);
        String s = new String(buf, pos, (int) n, StandardCharsets.UTF_8);
        pos += (int) n;
        return s;
      }
      need(2 * n);
      char[] chars = new char[(int) n];
      for (int i = 0; i < n; i++) {
        chars[i] = (char) ((buf[pos] & 0xFF) << 8 | (buf[pos + 1] & 0xFF));
        pos += 2;
      }
      return new String(chars);
    }

    void end() {
      if (pos != limit) {
        throw new IllegalArgumentException((limit - pos) + " trailing bytes");
      }
    }

    private void need(long n) {
      if (n < 0 || n > limit - pos) {
        throw new IllegalArgumentException("truncated record at " + pos);
      }
    }
  }
}
