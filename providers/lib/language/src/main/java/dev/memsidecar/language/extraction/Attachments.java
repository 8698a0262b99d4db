package dev.memsidecar.language.extraction;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Attachment markers in a turn: {@code [image: a photo of a cup]}, {@code (photo: ...)}, {@code
 * [图片：...]}, opened by a noun of any language ({@link SharedLexicon#attachmentNouns}). Stateless
 * and thread-safe.
 */
public final class Attachments {
  private Attachments() {}

  private static final String NOUNS = AnyLanguage.alternation(SharedLexicon::attachmentNouns);

  private static final Pattern MARKER =
      Pattern.compile("(?i)^[\\[(](?:" + NOUNS + ")(?![A-Za-z]).*[\\])]$");
  private static final Pattern BODY =
      Pattern.compile("(?i)^[\\[(](?:" + NOUNS + ")\\s*[:：]?\\s*(.*?)[\\])]$");
  private static final Pattern ANYWHERE =
      Pattern.compile("[\\[(](?:" + NOUNS + ")(?![A-Za-z])[^\\])]*[\\])]");

  /** Whether {@code sentence} is an attachment marker and nothing else. */
  public static boolean isMarker(String sentence) {
    return MARKER.matcher(sentence).matches();
  }

  /** What a marker shows: "a photo of a cup" of "[image: a photo of a cup]"; else the marker. */
  public static String caption(String marker) {
    Matcher m = BODY.matcher(marker);
    return m.matches() ? m.group(1).strip() : marker;
  }

  /** {@code text} with each attachment marker replaced by a space. */
  public static String remove(String text) {
    return ANYWHERE.matcher(text).replaceAll(" ");
  }
}
