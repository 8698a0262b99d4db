package dev.memsidecar.provider.embedder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Java tokenizer gives the ids HuggingFace's own (Rust) tokenizer gives for the same {@code
 * tokenizer.json}, run through DJL as langchain4j runs it: the model sees what it was trained on.
 */
class TestBertTokenizer {
  private static final List<String> SAMPLES =
      List.of(
          "",
          "   ",
          "Hello, world!",
          "The user can't stand cilantro; they'd rather eat parsley.",
          "What food does the user dislike?",
          "Caroline went to the LGBTQ support group on 7 May 2023.",
          "e-mail: jane.doe@example.com, phone +1 (555) 010-2030, price $3.50 & 20% off",
          "Café naïve résumé Ångström façade coöperate",
          "İstanbul ΣΊΣΥΦΟΣ straße ǅemal",
          "tabs\tand\nnewlines\r\nand\u00a0no-break\u2003spaces\u3000ideographic",
          "control\u0000chars\u0007and\u200bzero\u200dwidth\ufeffmarks\ufffd",
          "emoji 😀👍🏽 and symbols ™ © ° ± × ÷ → ★ ♥",
          "用户不喜欢吃香菜，更喜欢欧芹。",
          "我们下周三在北京开会，记得带上笔记本电脑。",
          "混合 English 和中文 text，还有数字 123 与 Python3.12！",
          "日本語のテキストとカタカナ、한국어 텍스트도 있습니다。",
          "supercalifragilisticexpialidocious antidisestablishmentarianism",
          "a".repeat(99) + " " + "b".repeat(100) + " " + "c".repeat(101),
          "special tokens [CLS] inside [SEP] the [MASK] text [UNK] and [PAD][CLS]",
          "brackets [cls] lower and [ CLS ] spaced",
          "«quotes» “curly” ‘single’ — dashes – and … ellipsis ¿qué? ¡sí!",
          "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ and ｶﾀｶﾅ halfwidth",
          "𠀀𠀁 rare CJK extension B and 𪜀 extension C");

  @ParameterizedTest
  @ValueSource(strings = {"/bge-small-en-v1.5-tokenizer.json", "/bge-small-zh-v1.5-tokenizer.json"})
  void givesTheIdsOfHuggingFaceTokenizers(String resource) throws IOException {
    BertTokenizer ours = read(resource);
    try (HuggingFaceTokenizer reference = reference(resource)) {
      List<String> texts = new ArrayList<>(SAMPLES);
      long seed = 20_240_509L;
      texts.addAll(randomTexts(new Random(seed), 300));
      for (String text : texts) {
        Encoding encoding = reference.encode(text);
        long[] expected = encoding.getIds();
        int[] actual = ours.encode(text, Integer.MAX_VALUE);
        assertArrayEquals(
            expected,
            Arrays.stream(actual).asLongStream().toArray(),
            () -> "seed " + seed + ", text <" + text + ">");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"/bge-small-en-v1.5-tokenizer.json", "/bge-small-zh-v1.5-tokenizer.json"})
  void cutsLongTextsToTheLimitKeepingClsAndSep(String resource) throws IOException {
    BertTokenizer tokenizer = read(resource);
    String text = "memory sidecar 记忆 recalls evidence, ".repeat(300);
    int[] full = tokenizer.encode(text, Integer.MAX_VALUE);
    int[] cut = tokenizer.encode(text, 512);
    assertEquals(512, cut.length);
    assertEquals(full[0], cut[0]);
    assertEquals(full[full.length - 1], cut[511]);
    assertArrayEquals(Arrays.copyOf(full, 511), Arrays.copyOf(cut, 511));
  }

  @ParameterizedTest
  @ValueSource(strings = {"/bge-small-en-v1.5-tokenizer.json", "/bge-small-zh-v1.5-tokenizer.json"})
  void givesOnlyClsAndSepForTextWithoutTokens(String resource) throws IOException {
    BertTokenizer tokenizer = read(resource);
    assertEquals(2, tokenizer.encode("", 512).length);
    assertEquals(2, tokenizer.encode(" \t\n\u200b\u0000 ", 512).length);
  }

  static BertTokenizer read(String resource) throws IOException {
    try (InputStream in = TestBertTokenizer.class.getResourceAsStream(resource)) {
      return BertTokenizer.read(in);
    }
  }

  private static HuggingFaceTokenizer reference(String resource) throws IOException {
    try (InputStream in = TestBertTokenizer.class.getResourceAsStream(resource)) {
      return HuggingFaceTokenizer.newInstance(
          in, Map.of("padding", "false", "truncation", "false", "addSpecialTokens", "true"));
    }
  }

  /** Texts drawn from a mix of scripts, punctuation, spaces and odd code points. */
  private static List<String> randomTexts(Random random, int count) {
    String[] alphabets = {
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
      "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生",
      " \t\n.,;:!?'\"()[]{}<>@#$%^&*-_=+/\\|~`，。！？：；“”（）【】",
      "éèêëàâäôöûüçñßøåæœÉÀÖÜ",
      "αβγδεζηθικλμνξοπρστυφχψωΣΩ",
      "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
      "あいうえおかきくけこアイウエオカキクケコ한국어",
      "\u00a0\u2003\u200b\u200d\ufeff\u0301\u0308\u00ad",
    };
    List<String> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      StringBuilder sb = new StringBuilder();
      int length = 1 + random.nextInt(60);
      for (int j = 0; j < length; j++) {
        String alphabet = alphabets[random.nextInt(alphabets.length)];
        sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      if (random.nextInt(4) == 0) {
        sb.appendCodePoint(0x1F600 + random.nextInt(64));
      }
      out.add(sb.toString());
    }
    return out;
  }
}
