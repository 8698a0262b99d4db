package dev.memsidecar.provider.lucene;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.cjk.CJKWidthFilter;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * How memory text becomes terms, the same for indexing and for queries, so English and Chinese (and
 * Japanese, Korean) both match:
 *
 * <ol>
 *   <li>{@link StandardTokenizer} (Unicode word breaks: English words, and one token per Han
 *       character);
 *   <li>{@link CJKWidthFilter}: full-width Latin to ASCII, half-width Katakana to full-width;
 *   <li>{@link LowerCaseFilter};
 *   <li>{@link CJKBigramFilter} over Han, Hiragana, Katakana and Hangul with unigrams kept: "发布会"
 *       gives 发, 布, 会, 发布, 布会, so a one-character query still matches and a two-character word
 *       matches as a unit (bigrams are rarer, so they weigh more in BM25);
 *   <li>English stopwords ({@link EnglishAnalyzer#ENGLISH_STOP_WORDS_SET}) dropped;
 *   <li>{@link EnglishPossessiveFilter} and {@link PorterStemFilter}, so "painted" matches "paint".
 *       Neither changes CJK tokens.
 * </ol>
 *
 * Thread-safe, as every Lucene {@link Analyzer} is (it keeps per-thread token streams).
 */
final class MemoryTextAnalyzer extends Analyzer {
  /** At most this many distinct terms of a query are searched for (a bound on clause count). */
  static final int MAX_QUERY_TERMS = 256;

  @Override
  protected TokenStreamComponents createComponents(String fieldName) {
    Tokenizer source = new StandardTokenizer();
    TokenStream ts = new CJKWidthFilter(source);
    ts = new LowerCaseFilter(ts);
    ts =
        new CJKBigramFilter(
            ts,
            CJKBigramFilter.HAN
                | CJKBigramFilter.HIRAGANA
                | CJKBigramFilter.KATAKANA
                | CJKBigramFilter.HANGUL,
            true);
    ts = new StopFilter(ts, EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
    ts = new EnglishPossessiveFilter(ts);
    ts = new PorterStemFilter(ts);
    return new TokenStreamComponents(source, ts);
  }

  @Override
  protected TokenStream normalize(String fieldName, TokenStream in) {
    return new LowerCaseFilter(new CJKWidthFilter(in));
  }

  /** The distinct terms of {@code text} in {@code field}, in order of first appearance. */
  List<String> distinctTerms(String field, String text) {
    Set<String> terms = new LinkedHashSet<>();
    try (TokenStream ts = tokenStream(field, text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken() && terms.size() < MAX_QUERY_TERMS) {
        terms.add(term.toString());
      }
      ts.end();
    } catch (IOException e) {
      // Analysis of a String reads no file: this does not happen.
      throw new UncheckedIOException(e);
    }
    return new ArrayList<>(terms);
  }
}
