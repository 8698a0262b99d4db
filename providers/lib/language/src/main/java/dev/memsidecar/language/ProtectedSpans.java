package dev.memsidecar.language;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The spans of a text that no text rule may split or rewrite: {@code `code`}, quoted text ({@code
 * "..."}, {@code “...”}, up to 200 characters on one line), URLs and e-mail addresses (without a
 * sentence's final punctuation after them). {@link #mask} replaces each with a placeholder, {@code
 * \uE000<n>\uE001} ({@code n} its index in the list it fills), and turns right single quotes into
 * apostrophes; {@link #unmask} puts the spans back. Code that tokenises masked text must keep a
 * placeholder whole. Stateless and thread-safe.
 */
public final class ProtectedSpans {
  private ProtectedSpans() {}

  private static final Pattern PROTECTED =
      Pattern.compile(
          "`[^`\\n"
              + "]+`|\"[^\"\\n"
              + "]{1,200}\"|“[^”\\n"
              + "]{1,200}”|https?://[^\\s，。；！？、）)\\]\"'<>]*[^\\s，。；！？、）)\\]\"'<>.,;:!?]"
              + "|[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+");

  private static final Pattern PLACEHOLDER = Pattern.compile("\\uE000(\\d+)\\uE001");

  /**
   * {@code text} with its protected spans replaced by placeholders, each span appended to {@code
   * saved}, and {@code ’} written {@code '}.
   */
  public static String mask(String text, List<String> saved) {
    Matcher m = PROTECTED.matcher(text.replace('\u2019', '\''));
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      saved.add(m.group());
      m.appendReplacement(out, Matcher.quoteReplacement("\uE000" + (saved.size() - 1) + "\uE001"));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** {@code text} with every placeholder replaced by its span in {@code saved}. */
  public static String unmask(String text, List<String> saved) {
    if (saved.isEmpty()) {
      return text;
    }
    Matcher m = PLACEHOLDER.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(saved.get(Integer.parseInt(m.group(1)))));
    }
    m.appendTail(out);
    return out.toString();
  }
}
