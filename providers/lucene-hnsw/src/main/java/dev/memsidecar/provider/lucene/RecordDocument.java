package dev.memsidecar.provider.lucene;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.language.Terms;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.util.BytesRef;

/**
 * How a {@link MemoryRecord} maps to a Lucene document and back. One document per record:
 *
 * <ul>
 *   <li>{@value #KEY}: namespace, NUL, id; the unique key that {@code updateDocument}, {@code get}
 *       and {@code delete} use (namespaces and ids cannot hold NUL, so keys never collide);
 *   <li>{@value #NAMESPACE}, {@value #STATUS}, {@value #KIND}, {@value #TAG} (one per tag): exact
 *       terms for filters;
 *   <li>{@value #ID}: exact term (keyset range) and sorted doc values (order, ties);
 *   <li>{@value #TEXT}: content, summary and tags, and {@value #CONTEXT}: context, analysed by
 *       {@link MemoryTextAnalyzer} for BM25F ({@link HybridSearcher}); never stored, so context is
 *       ranked on but never returned as content;
 *   <li>{@value #SPEAKER}: the speaker label of the content ({@link Terms#speaker}), analysed;
 *       never stored;
 *   <li>the vector field ({@link #vectorField}): the unit embedding of {@code content + "\n" +
 *       context} with dot-product similarity, only for ACTIVE records with a non-zero embedding
 *       (nothing else is ever searched by vector);
 *   <li>{@value #CREATED}: point and doc values; {@value #UPDATED}: doc values; {@value #EXPIRE}:
 *       point, only for records with an expire time; all epoch nanoseconds;
 *   <li>{@value #RECORD}: the whole record in {@link RecordCodec} form, the only stored field.
 * </ul>
 *
 * Times must lie in 1677-09-21..2262-04-11 (what epoch nanoseconds in a long can hold); others are
 * rejected with INVALID_ARGUMENT. Stateless and thread-safe.
 */
final class RecordDocument {
  static final String KEY = "key";
  static final String NAMESPACE = "ns";
  static final String ID = "id";
  static final String STATUS = "status";
  static final String KIND = "kind";
  static final String TAG = "tag";
  static final String TEXT = "text";
  static final String CONTEXT = "context";
  static final String SPEAKER = "speaker";
  static final String CREATED = "created";
  static final String UPDATED = "updated";
  static final String EXPIRE = "expire";
  static final String RECORD = "record";

  private static final Set<String> RECORD_ONLY = Set.of(RECORD);
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private RecordDocument() {}

  /** The vector field for embeddings of {@code dimensions}: a new length gets a new field. */
  static String vectorField(int dimensions) {
    return "vector" + dimensions;
  }

  /**
   * The vector of {@code r} for its vector field: {@link #embed} of {@link
   * MemoryRecord#indexedText()}, or null when {@code r} is not ACTIVE (nothing else is searched by
   * vector).
   */
  static float[] embedding(MemoryRecord r, Embedder embedder) {
    return r.status() == MemoryStatus.ACTIVE ? embed(embedder, r.indexedText()) : null;
  }

  /**
   * The vectors of {@code records}, in order, as {@link #embedding} gives them, the texts of the
   * ACTIVE ones embedded with one {@link Embedder#embedAll} call: a model embeds a batch much
   * faster than one text at a time.
   *
   * @return a list of {@code records.size()} vectors, null where {@link #embedding} is null
   * @throws MemoryException INTERNAL as {@link #embed} does
   */
  static List<float[]> embeddings(List<MemoryRecord> records, Embedder embedder) {
    List<String> texts = new ArrayList<>(records.size());
    for (MemoryRecord r : records) {
      if (r.status() == MemoryStatus.ACTIVE) {
        texts.add(r.indexedText());
      }
    }
    List<float[]> vectors = texts.isEmpty() ? List.of() : embedder.embedAll(texts);
    if (vectors == null || vectors.size() != texts.size()) {
      throw MemoryException.internal(
          "lucene-hnsw: embedder '"
              + embedder.name()
              + "' returned "
              + (vectors == null ? "null" : vectors.size() + " vectors")
              + " for "
              + texts.size()
              + " texts",
          null);
    }
    List<float[]> out = new ArrayList<>(records.size());
    int next = 0;
    for (MemoryRecord r : records) {
      out.add(r.status() == MemoryStatus.ACTIVE ? checked(embedder, vectors.get(next++)) : null);
    }
    return out;
  }

  /**
   * {@code embedder}'s embedding of {@code text} as a unit vector, or null when it is all zeros.
   *
   * @throws MemoryException INTERNAL if the embedder returns a vector of another length than it
   *     declares, or one holding a NaN or an infinity
   */
  static float[] embed(Embedder embedder, String text) {
    return checked(embedder, embedder.embed(text));
  }

  /** {@code v}, a vector {@code embedder} returned, as {@link #embed} returns it. */
  private static float[] checked(Embedder embedder, float[] v) {
    if (v == null || v.length != embedder.dimensions()) {
      throw MemoryException.internal(
          "lucene-hnsw: embedder '"
              + embedder.name()
              + "' returned "
              + (v == null ? "null" : v.length + " dimensions")
              + " instead of "
              + embedder.dimensions(),
          null);
    }
    try {
      return unitOrNull(v);
    } catch (IllegalArgumentException e) {
      throw MemoryException.internal(
          "lucene-hnsw: embedder '"
              + embedder.name()
              + "' returned a vector that is not finite: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * {@code v} as a unit vector ({@link Embedder#unit}), or null when it is all zeros: such a vector
   * has no direction, so it is neither indexed nor searched with. With unit vectors on both sides
   * the index's dot product is the cosine.
   *
   * @throws IllegalArgumentException if {@code v} holds a NaN or an infinity
   */
  static float[] unitOrNull(float[] v) {
    float[] unit = Embedder.unit(v);
    for (float x : unit) {
      if (x != 0) {
        return unit;
      }
    }
    return null;
  }

  static Term key(Namespace namespace, String id) {
    return new Term(KEY, namespace.value() + '\u0000' + id);
  }

  /**
   * The document of {@code r}.
   *
   * @param vector its unit embedding, or null for none
   */
  static Document of(MemoryRecord r, float[] vector, String vectorField) {
    return of(r, vector, vectorField, RecordCodec.encode(r));
  }

  /**
   * The document of {@code r}, whose {@link RecordCodec} form the caller already has.
   *
   * @param vector its unit embedding, or null for none
   * @param encoded {@code RecordCodec.encode(r)}
   */
  static Document of(MemoryRecord r, float[] vector, String vectorField, byte[] encoded) {
    long created = toNanos(r.createTime(), "create_time");
    long updated = toNanos(r.updateTime(), "update_time");
    Document doc = new Document();
    doc.add(new StringField(KEY, key(r.namespace(), r.id()).bytes(), Field.Store.NO));
    doc.add(new StringField(NAMESPACE, r.namespace().value(), Field.Store.NO));
    doc.add(new StringField(ID, r.id(), Field.Store.NO));
    doc.add(new SortedDocValuesField(ID, new BytesRef(r.id())));
    doc.add(new StringField(STATUS, r.status().name(), Field.Store.NO));
    doc.add(new StringField(KIND, r.kind().name(), Field.Store.NO));
    for (String tag : r.tags()) {
      doc.add(new StringField(TAG, tag, Field.Store.NO));
    }
    addText(doc, TEXT, r.content());
    addText(doc, TEXT, r.summary());
    for (String tag : r.tags()) {
      addText(doc, TEXT, tag);
    }
    addText(doc, CONTEXT, r.context());
    addText(doc, SPEAKER, Terms.speaker(r.content()));
    doc.add(new LongPoint(CREATED, created));
    doc.add(new NumericDocValuesField(CREATED, created));
    doc.add(new NumericDocValuesField(UPDATED, updated));
    if (r.expireTime() != null) {
      doc.add(new LongPoint(EXPIRE, toNanos(r.expireTime(), "expire_time")));
    }
    if (vector != null && r.status() == MemoryStatus.ACTIVE) {
      doc.add(new KnnFloatVectorField(vectorField, vector, VectorSimilarityFunction.DOT_PRODUCT));
    }
    doc.add(new StoredField(RECORD, encoded));
    return doc;
  }

  /**
   * The record of document {@code doc}.
   *
   * @throws MemoryException INTERNAL if it does not hold one this provider wrote
   */
  static MemoryRecord read(StoredFields fields, int doc) throws IOException {
    BytesRef bytes = fields.document(doc, RECORD_ONLY).getBinaryValue(RECORD);
    if (bytes == null) {
      throw MemoryException.internal("lucene-hnsw: document " + doc + " holds no record", null);
    }
    try {
      return RecordCodec.decode(bytes.bytes, bytes.offset, bytes.length);
    } catch (RuntimeException e) {
      throw MemoryException.internal("lucene-hnsw: corrupt record in document " + doc, e);
    }
  }

  /** Fails with INVALID_ARGUMENT, naming the field, if a time of {@code r} cannot be indexed. */
  static void checkTimes(MemoryRecord r) {
    toNanos(r.createTime(), "create_time");
    toNanos(r.updateTime(), "update_time");
    if (r.expireTime() != null) {
      toNanos(r.expireTime(), "expire_time");
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

  /** Epoch nanoseconds of {@code t}, clamped to the range of a long. */
  static long saturatedNanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), NANOS_PER_SECOND), t.getNano());
    } catch (ArithmeticException e) {
      return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private static void addText(Document doc, String field, String text) {
    if (!text.isEmpty()) {
      doc.add(new TextField(field, text, Field.Store.NO));
    }
  }
}
