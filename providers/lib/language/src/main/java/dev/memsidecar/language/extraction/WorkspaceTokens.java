package dev.memsidecar.language.extraction;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tokens of a text that make a statement a workspace fact for the rules extractor, the things
 * it names exactly (what dedupe compares is {@link dev.memsidecar.language.dedupe.CanonicalTokens},
 * a narrower set): {@code ALL_CAPS_TOKENS}, URLs, e-mail addresses, hosts and host:port pairs,
 * versions ({@code 1.2.3}, {@code v2}), paths, and a port number as any language writes it ({@link
 * SharedLexicon#portPhrase}). Stateless and thread-safe.
 */
public final class WorkspaceTokens {
  private WorkspaceTokens() {}

  private static final String PORTS =
      AnyLanguage.alternation(SharedLexicon::portPhrase).isEmpty()
          ? ""
          : "|" + AnyLanguage.alternation(SharedLexicon::portPhrase);

  private static final Pattern TOKEN =
      Pattern.compile(
          "\\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\\b|\\b[A-Z]{2,}[0-9]+[A-Z0-9]*\\b|https?://[^\\s，。；！？、）)\\]\"'<>]+"
              + "|[\\w.+-]+@[\\w-]+\\.[\\w.-]+|\\b[a-z0-9-]+(?:\\.[a-z0-9-]+)+:\\d{2,5}\\b"
              + "|\\b(?:[a-z0-9-]+\\.)+(?:com|org|net|io|dev|internal|local|cn|ai|app|cloud|co|svc)\\b"
              + "|\\bv?\\d+\\.\\d+\\.\\d+(?:[-+][\\w.]+)?\\b|\\bv\\d+(?:\\.\\d+)?\\b"
              + "|(?<![\\w/])(?:/[\\w.-]+){2,}|(?<![\\w/])\\.?[\\w-]+(?:/[\\w.-]+){2,}"
              + "|(?<![\\w/])\\.?[\\w-]+/[\\w./-]*\\.(?:ya?ml|json|toml|xml|md|txt|java|py|js|ts|go|rs|sh"
              + "|sql|conf|cfg|ini|properties|gradle|lock|env)\\b"
              + PORTS);

  /** The canonical tokens of {@code text}, in order, without trailing punctuation. */
  public static List<String> of(String text) {
    if (!mayHold(text)) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    Matcher m = TOKEN.matcher(text);
    while (m.find()) {
      out.add(m.group().replaceAll("[.,;:)]+$", ""));
    }
    return List.copyOf(out);
  }

  /**
   * Whether {@code text} may hold a token: every form needs a digit, '_', '@', '/' or a '.' before
   * a lower-case letter ("example.com"). Most sentences of a conversation have none, and the
   * pattern, tried at every position, costs far more than this look.
   */
  private static boolean mayHold(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '_' || c == '@' || c == '/' || c >= '0' && c <= '9') {
        return true;
      }
      if (c == '.' && i + 1 < text.length()) {
        char next = text.charAt(i + 1);
        if (next >= 'a' && next <= 'z') {
          return true;
        }
      }
    }
    return false;
  }
}
