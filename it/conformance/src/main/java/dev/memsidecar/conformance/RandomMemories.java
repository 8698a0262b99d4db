package dev.memsidecar.conformance;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import dev.memsidecar.language.Terms;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Random namespaces, ids, words and records drawn from one seeded {@link Random}, so a failing
 * conformance test replays exactly with the same seed. Everything it makes is unique within one
 * instance (one test). Not thread-safe: a test's worker threads draw their inputs up front.
 */
final class RandomMemories {
  static final String PROFILE = "conformance";

  private static final String ID_CHARS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
  private static final String LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
  private static final String CONSONANTS = "bcdfghjklmnpqrstvwxz";
  private static final String VOWELS = "aeiouy";

  /** Text in several scripts, with characters outside the BMP, quotes and control characters. */
  private static final List<String> UNICODE_FRAGMENTS =
      List.of(
          "Grüße aus Köln — naïve café",
          "用户喜欢简洁的回答",
          "日本語のメモ：カタカナとひらがな",
          "사용자는 짧은 답변을 선호합니다",
          "emoji 🚀🧠 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
          "quotes \"double\" 'single' `back` \\slash",
          "line one\nline two\ttabbed\r\n",
          "Ελληνικά και русский текст",
          "עברית ועربية");

  private final Random random;
  private final Set<String> used = new HashSet<>();

  RandomMemories(Random random) {
    this.random = requireNonNull(random, "random is null");
  }

  Random random() {
    return random;
  }

  /** A fresh base instant in 2025 with a random nanosecond part. */
  Instant instant() {
    return Instant.parse("2025-01-01T00:00:00Z")
        .plusSeconds(random.nextInt(300 * 86_400))
        .plusNanos(random.nextInt(1_000_000_000));
  }

  /**
   * A new namespace of the whole allowed alphabet ({@code [A-Za-z0-9._:/-]}), shaped like the
   * engine's ({@code <workspace>:user:<id>:<profile>}).
   */
  Namespace namespace() {
    while (true) {
      String value =
          token(LOWER_ALNUM, 6)
              + ":user:"
              + token(ID_CHARS, 3 + random.nextInt(10))
              + ":p/"
              + token(LOWER_ALNUM, 4);
      if (used.add("ns " + value)) {
        return Namespace.of(value);
      }
    }
  }

  /** A new id of 1..40 characters from the whole allowed alphabet, never "." or "..". */
  String id() {
    while (true) {
      String id = token(ID_CHARS, 1 + random.nextInt(40));
      if (!id.equals(".") && !id.equals("..") && used.add("id " + id)) {
        return id;
      }
    }
  }

  /**
   * A new id of lower-case letters and digits only, for tests that compare ids: every store
   * collation orders these the way {@link String#compareTo} does.
   */
  String plainId() {
    while (true) {
      String id = token(LOWER_ALNUM, 10);
      if (used.add("id " + id)) {
        return id;
      }
    }
  }

  /**
   * A new pronounceable lower-case word of 6..11 letters that is no stopword and was not handed out
   * before, so a test knows exactly which records hold it.
   */
  String word() {
    while (true) {
      StringBuilder w = new StringBuilder();
      int length = 6 + random.nextInt(6);
      for (int i = 0; i < length; i++) {
        String from = i % 2 == 0 ? CONSONANTS : VOWELS;
        w.append(from.charAt(random.nextInt(from.length())));
      }
      String word = w.toString();
      if (!Terms.isStopword(word) && used.add("word " + word)) {
        return word;
      }
    }
  }

  List<String> words(int n) {
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(word());
    }
    return out;
  }

  /** {@code n} words picked with repetition from {@code vocabulary}, space separated. */
  String sentence(List<String> vocabulary, int n) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        out.append(' ');
      }
      out.append(vocabulary.get(random.nextInt(vocabulary.size())));
    }
    return out.toString();
  }

  String unicodeFragment() {
    return UNICODE_FRAGMENTS.get(random.nextInt(UNICODE_FRAGMENTS.size()));
  }

  <T> T pick(T[] values) {
    return values[random.nextInt(values.length)];
  }

  /** An active, long-term, semantic record created and updated at {@code time}. */
  MemoryRecord.Builder record(Namespace ns, String id, String content, Instant time) {
    return MemoryRecord.builder()
        .namespace(ns)
        .id(id)
        .profile(PROFILE)
        .content(content)
        .times(time);
  }

  /**
   * A record with every field random: unicode and CJK text, tags in a random (unsorted) order,
   * metadata, any kind and status, and an expire time about half the time.
   */
  MemoryRecord fullRecord(Namespace ns, String id) {
    Instant created = instant();
    List<String> tags = new ArrayList<>();
    int tagCount = random.nextInt(5);
    for (int i = 0; i < tagCount; i++) {
      tags.add(i == 1 ? "标签-" + word() : word());
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    int metaCount = random.nextInt(4);
    for (int i = 0; i < metaCount; i++) {
      metadata.put(word() + (i == 0 ? ".键" : ""), i == 1 ? "" : unicodeFragment() + " " + word());
    }
    boolean shortTerm = random.nextBoolean();
    return MemoryRecord.builder()
        .namespace(ns)
        .id(id)
        .profile(PROFILE)
        .kind(pick(MemoryKind.values()))
        .content(word() + " " + unicodeFragment() + " " + unicodeFragment() + " " + word())
        .summary(random.nextBoolean() ? "" : "summary " + word() + " " + unicodeFragment())
        .context(random.nextBoolean() ? "" : "user: " + word() + "\nassistant: " + word())
        .confidence(random.nextFloat())
        .tags(tags)
        .sensitivity(pick(new String[] {"", "pii", "internal", "秘密"}))
        .metadata(metadata)
        .createTime(created)
        .updateTime(created.plusNanos(random.nextLong(10_000_000_000_000L)))
        .gateScore(random.nextFloat() * 10f)
        .status(pick(MemoryStatus.values()))
        .sourceRefs(random.nextBoolean() ? List.of() : List.of("run:" + word(), "remember:" + id))
        .validity(shortTerm ? Validity.SHORT_TERM : Validity.LONG_TERM)
        .expireTime(shortTerm ? created.plusSeconds(1 + random.nextInt(90 * 86_400)) : null)
        .build();
  }

  private String token(String alphabet, int length) {
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return out.toString();
  }
}
