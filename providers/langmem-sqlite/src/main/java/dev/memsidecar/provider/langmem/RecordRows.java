package dev.memsidecar.provider.langmem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import dev.memsidecar.jdbc.Dialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * How a {@link MemoryRecord} maps to a row of {@code memory_records} and back.
 *
 * <p>Times are stored as epoch nanoseconds in {@code BIGINT} columns, so every {@link Instant} from
 * 1677-09-21 to 2262-04-11 round-trips exactly ({@code put(r)} then {@code get} equals {@code r});
 * an instant outside that range is rejected with INVALID_ARGUMENT. Tags and source refs are JSON
 * arrays of strings, metadata a JSON object of strings with its keys sorted (so equal maps give
 * equal text), written and read with Jackson ({@link #JSON}); text is kept as Java holds it, so an
 * unpaired surrogate is stored as itself, as in the text columns. The {@code scope} column of the
 * original LangMem schema holds the profile id. Stateless and thread-safe.
 */
final class RecordRows {
  static final String TABLE = "memory_records";

  /** Every column, in the order {@link #bind} sets them and {@link #read} reads them. */
  static final List<String> COLUMNS =
      List.of(
          "namespace",
          "id",
          "profile",
          "kind",
          "scope",
          "status",
          "content",
          "summary",
          "context",
          "confidence",
          "tags_json",
          "sensitivity",
          "metadata_json",
          "created_at",
          "updated_at",
          "gate_score",
          "source_refs_json",
          "validity",
          "expire_at");

  static final List<String> KEY = List.of("namespace", "id");

  /**
   * The JSON codec of the text columns. Strict where it can be: trailing text and duplicate keys
   * fail, and non-finite numbers are not JSON; it still reads every column a release of this
   * provider wrote.
   */
  static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .build();

  private static final ObjectReader STRINGS = JSON.readerFor(new TypeReference<List<String>>() {});
  private static final ObjectReader STRING_MAP =
      JSON.readerFor(new TypeReference<Map<String, String>>() {});

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private RecordRows() {}

  /** {@code p.c1, p.c2, ...} for a select list, {@code prefix} being a table alias or empty. */
  static String selectList(String prefix) {
    StringBuilder out = new StringBuilder();
    for (String c : COLUMNS) {
      if (!out.isEmpty()) {
        out.append(", ");
      }
      out.append(prefix).append(c);
    }
    return out.toString();
  }

  /** Sets parameters 1..{@code COLUMNS.size()} of {@code st} from {@code r}. */
  static void bind(PreparedStatement st, MemoryRecord r) throws SQLException {
    String tags = toJson(r.tags());
    String metadata = toJson(r.metadata());
    String sourceRefs = toJson(r.sourceRefs());
    int i = 1;
    st.setString(i++, r.namespace().value());
    st.setString(i++, r.id());
    st.setString(i++, r.profile());
    st.setString(i++, r.kind().name());
    st.setString(i++, r.profile());
    st.setString(i++, r.status().name());
    st.setString(i++, r.content());
    st.setString(i++, r.summary());
    st.setString(i++, r.context());
    st.setFloat(i++, r.confidence());
    st.setString(i++, tags);
    st.setString(i++, r.sensitivity());
    st.setString(i++, metadata);
    st.setLong(i++, toNanos(r.createTime(), "create_time"));
    st.setLong(i++, toNanos(r.updateTime(), "update_time"));
    st.setFloat(i++, r.gateScore());
    st.setString(i++, sourceRefs);
    st.setString(i++, r.validity().name());
    if (r.expireTime() == null) {
      st.setNull(i, Types.BIGINT);
    } else {
      st.setLong(i, toNanos(r.expireTime(), "expire_time"));
    }
  }

  /**
   * The record in columns {@code first..first+COLUMNS.size()-1} of the current row.
   *
   * @throws MemoryException INTERNAL if the row does not hold a valid record
   */
  static MemoryRecord read(ResultSet rs, int first) throws SQLException {
    int i = first;
    String namespace = rs.getString(i++);
    String id = rs.getString(i++);
    try {
      MemoryRecord.Builder b =
          MemoryRecord.builder()
              .namespace(Namespace.of(namespace))
              .id(id)
              .profile(rs.getString(i++))
              .kind(MemoryKind.valueOf(rs.getString(i++)));
      i++; // scope: a copy of profile
      b.status(MemoryStatus.valueOf(rs.getString(i++)))
          .content(rs.getString(i++))
          .summary(rs.getString(i++))
          .context(rs.getString(i++))
          .confidence(rs.getFloat(i++))
          .tags(STRINGS.readValue(rs.getString(i++)))
          .sensitivity(rs.getString(i++))
          .metadata(STRING_MAP.readValue(rs.getString(i++)))
          .createTime(fromNanos(rs.getLong(i++)))
          .updateTime(fromNanos(rs.getLong(i++)))
          .gateScore(rs.getFloat(i++))
          .sourceRefs(STRINGS.readValue(rs.getString(i++)))
          .validity(Validity.valueOf(rs.getString(i++)));
      long expire = rs.getLong(i);
      b.expireTime(rs.wasNull() ? null : fromNanos(expire));
      return b.build();
    } catch (JsonProcessingException | RuntimeException e) {
      // A bad enum name, JSON text, id or namespace: the row was not written by this provider.
      throw corrupt(namespace, id, e);
    }
  }

  /** Fails with INVALID_ARGUMENT, naming the field, if a time of {@code r} cannot be stored. */
  static void checkTimes(MemoryRecord r) {
    toNanos(r.createTime(), "create_time");
    toNanos(r.updateTime(), "update_time");
    if (r.expireTime() != null) {
      toNanos(r.expireTime(), "expire_time");
    }
  }

  /**
   * Fails with INVALID_ARGUMENT, naming the field, if a text of {@code r} is one the database
   * cannot hold as it is ({@link Dialect#unstorableText}: a NUL character or an unpaired surrogate
   * on PostgreSQL); on H2 every text passes. Each tag, source ref, metadata key and value counts,
   * not only the JSON they are stored as, so a record is storable or not by the same rule in every
   * field.
   */
  static void checkText(MemoryRecord r, Dialect dialect) {
    checkText(dialect, r, "profile", "profile", r.profile());
    checkText(dialect, r, "content", "content", r.content());
    checkText(dialect, r, "summary", "summary", r.summary());
    checkText(dialect, r, "context", "context", r.context());
    checkText(dialect, r, "sensitivity", "sensitivity", r.sensitivity());
    for (int i = 0; i < r.tags().size(); i++) {
      checkText(dialect, r, "tags", "tag " + i, r.tags().get(i));
    }
    for (int i = 0; i < r.sourceRefs().size(); i++) {
      checkText(dialect, r, "source_refs", "source ref " + i, r.sourceRefs().get(i));
    }
    for (Map.Entry<String, String> e : r.metadata().entrySet()) {
      checkText(dialect, r, "metadata", "a metadata key", e.getKey());
      if (dialect.unstorableText(e.getKey()) == null) {
        checkText(dialect, r, "metadata", "metadata " + Ids.quote(e.getKey()), e.getValue());
      }
    }
  }

  private static void checkText(
      Dialect dialect, MemoryRecord r, String field, String what, String text) {
    String why = dialect.unstorableText(text);
    if (why != null) {
      throw MemoryException.invalidArgument(
          field, "record '" + r.id() + "': " + what + " holds " + why);
    }
  }

  /** Epoch nanoseconds of {@code t}; INVALID_ARGUMENT naming {@code field} when out of range. */
  static long toNanos(Instant t, String field) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), NANOS_PER_SECOND), t.getNano());
    } catch (ArithmeticException e) {
      throw MemoryException.invalidArgument(
          field, field + " " + t + " is outside the range this store keeps (years 1677..2262)");
    }
  }

  private static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a list or map of strings is always JSON", e);
    }
  }

  static Instant fromNanos(long nanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(nanos, NANOS_PER_SECOND), Math.floorMod(nanos, NANOS_PER_SECOND));
  }

  private static MemoryException corrupt(String namespace, String id, Exception cause) {
    return MemoryException.internal(
        "corrupt row in " + TABLE + " (namespace '" + namespace + "', id '" + id + "')", cause);
  }
}
