package dev.memsidecar.language;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.dedupe.CanonicalTokens;
import dev.memsidecar.language.dedupe.MemoryComparison;
import dev.memsidecar.language.lowvalue.LowValueFilter;
import dev.memsidecar.language.prohibition.Prohibition;
import dev.memsidecar.language.prohibition.Prohibitions;
import dev.memsidecar.language.tool.ToolAliases;
import dev.memsidecar.language.tool.ToolArguments;
import dev.memsidecar.language.tool.ToolCallMatcher;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The text rules the engine uses, in one place: the prohibitions in a message and which tools they
 * bind, whether a tool call's arguments hit a rule's objects, why a memory candidate is not worth
 * storing, and how a candidate relates to a stored memory. The engine holds one instance ({@link
 * #standard()}) and never names a language: each rule asks every language of the instance (the
 * default first) and the language-neutral code in the sub-packages does the rest.
 *
 * <p>Thread-safe. An instance keeps two bounded caches: compiled rule objects ({@link
 * ToolCallMatcher#CACHE_LIMIT}) and the features of stored memories ({@link
 * MemoryComparison#CACHE_ENTRIES}).
 */
public final class TextRules {
  private static final TextRules STANDARD = new TextRules(readingOrder());

  private final List<Language> languages;
  private final Prohibitions prohibitions;
  private final ToolAliases aliases;
  private final ToolCallMatcher matcher = new ToolCallMatcher();
  private final LowValueFilter lowValue;
  private final MemoryComparison comparison;

  /**
   * Text rules over {@code languages}, the default first (it reads what no other language claims,
   * and the words of its script inside another language's text).
   *
   * @throws IllegalArgumentException if {@code languages} is empty
   */
  public TextRules(List<Language> languages) {
    this.languages = List.copyOf(requireNonNull(languages, "languages is null"));
    if (this.languages.isEmpty()) {
      throw new IllegalArgumentException("languages is empty");
    }
    this.prohibitions = new Prohibitions(this.languages);
    this.aliases = new ToolAliases(this.languages);
    this.lowValue = new LowValueFilter(this.languages);
    this.comparison = new MemoryComparison(this.languages);
  }

  /** The text rules of every language this build reads ({@link Languages}), one shared instance. */
  public static TextRules standard() {
    return STANDARD;
  }

  /** {@link Languages#all()}, the default first. */
  private static List<Language> readingOrder() {
    List<Language> out = new ArrayList<>();
    out.add(Languages.byDefault());
    for (Language language : Languages.all()) {
      if (language != Languages.byDefault()) {
        out.add(language);
      }
    }
    return out;
  }

  /** The languages of these rules, the default first. */
  public List<Language> languages() {
    return languages;
  }

  // ---------------------------------------------------------------- tool rules

  /** The user's prohibitions in {@code message}, in order ({@link Prohibitions}). */
  public List<Prohibition> prohibitions(String message) {
    return prohibitions.find(message);
  }

  /**
   * The tools among {@code knownTools} that {@code noun} (a prohibition's noun, or any word that
   * names one) means, else its default tool, else empty ({@link ToolAliases#toolsFor}).
   */
  public List<String> toolsFor(String noun, Collection<String> knownTools) {
    return aliases.toolsFor(noun, knownTools);
  }

  /**
   * The tools among {@code tools} that {@code text} (a run's input) names or clearly means ({@link
   * ToolAliases#toolsMeant}): "fetch the weather with fetch_url", "email the report" ({@code
   * send_email}), 用终端 ({@code bash}).
   */
  public List<String> toolsMeant(String text, Collection<String> tools) {
    return aliases.toolsMeant(text, tools);
  }

  /**
   * Whether a call of {@code toolName} hits a rule's {@code objects}: the first object hit, or the
   * tool name for a rule without objects, or empty ({@link ToolCallMatcher#match}).
   */
  public Optional<String> matchToolCall(
      String toolName, List<String> objects, ToolArguments arguments) {
    return matcher.match(toolName, objects, arguments);
  }

  // ---------------------------------------------------------------- the write path

  /** Why a memory candidate is not worth storing ({@link LowValueFilter}), or empty to keep it. */
  public Optional<String> lowValueReason(String candidate) {
    return lowValue.reason(candidate);
  }

  /** The canonical tokens of {@code text}: commands, identifiers, URLs, addresses. */
  public Set<String> canonicalTokens(String text) {
    return CanonicalTokens.of(text);
  }

  /**
   * A candidate's text, read once to be compared with stored memories ({@link
   * MemoryComparison.Candidate#relationTo}: duplicate or supersedes, with the reason).
   */
  public MemoryComparison.Candidate dedupeCandidate(String content) {
    return comparison.candidate(content);
  }

  /**
   * Whether {@code candidate} says all of {@code existing} and more (a merge then keeps it): see
   * {@link MemoryComparison#elaborates}.
   */
  public boolean elaborates(String candidate, String existing) {
    return MemoryComparison.elaborates(candidate, existing);
  }
}
