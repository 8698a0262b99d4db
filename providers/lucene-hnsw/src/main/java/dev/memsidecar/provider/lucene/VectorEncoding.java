package dev.memsidecar.provider.lucene;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.util.quantization.QuantizedByteVectorValues.ScalarEncoding;

/**
 * How new segments hold the vectors the HNSW graph is searched with: the {@code hnsw.vectors}
 * setting. Each segment names its format, so an index keeps opening whatever the setting was when
 * each segment was written, and a merge rewrites merged segments in the current one.
 *
 * <ul>
 *   <li>{@code float32}: the vectors as they are ({@link Lucene99HnswVectorsFormat}); 4 bytes a
 *       dimension on disk and in the page cache a search touches.
 *   <li>{@code int8}, {@code int4}: Lucene's scalar-quantized HNSW ({@link
 *       Lucene104HnswScalarQuantizedVectorsFormat}, one byte or half a byte a dimension, with
 *       per-vector corrections). The graph is built and searched on the quantized vectors, so a
 *       search touches a quarter (an eighth) of the bytes; the float32 vectors are kept beside them
 *       (Lucene needs them to quantize again on merges, and scores candidates only the words found
 *       with them), so the disk grows by the quantized copy rather than shrinking. LoCoMo dev R@10
 *       with int8 is float32's (docs/providers.md, "Compact vectors").
 * </ul>
 */
enum VectorEncoding {
  FLOAT32("float32"),
  INT8("int8"),
  INT4("int4");

  static final Set<String> SETTING_VALUES =
      Arrays.stream(values())
          .map(VectorEncoding::settingValue)
          .collect(Collectors.toUnmodifiableSet());

  private final String settingValue;

  VectorEncoding(String settingValue) {
    this.settingValue = settingValue;
  }

  String settingValue() {
    return settingValue;
  }

  static VectorEncoding ofSetting(String value) {
    for (VectorEncoding e : values()) {
      if (e.settingValue.equals(value)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "no vector encoding '" + value + "'; known: " + SETTING_VALUES);
  }

  /**
   * Lucene's format for this encoding with the graph parameters {@code maxConn}, {@code beamWidth}.
   */
  KnnVectorsFormat format(int maxConn, int beamWidth) {
    return switch (this) {
      case FLOAT32 -> new Lucene99HnswVectorsFormat(maxConn, beamWidth);
      case INT8 ->
          new Lucene104HnswScalarQuantizedVectorsFormat(
              ScalarEncoding.UNSIGNED_BYTE, maxConn, beamWidth);
      case INT4 ->
          new Lucene104HnswScalarQuantizedVectorsFormat(
              ScalarEncoding.PACKED_NIBBLE, maxConn, beamWidth);
    };
  }
}
