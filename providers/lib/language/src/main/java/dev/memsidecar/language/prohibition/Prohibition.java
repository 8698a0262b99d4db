package dev.memsidecar.language.prohibition;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One prohibition found in a message ({@link Prohibitions}).
 *
 * @param sentence the prohibition as a rule that stands alone, ending with a full stop
 * @param verb the act ("email", "delete", 发邮件), or empty
 * @param noun the canonical tool noun ("email", "shell", ...; see {@link
 *     dev.memsidecar.language.tool.ToolNouns}), or empty
 * @param objects what it names, lower-cased, for {@link
 *     dev.memsidecar.language.tool.ToolCallMatcher}
 * @param enforceable false when it is conditional, aimed at someone unnamed, or narrowed in words
 *     no object holds: show it, do not enforce it
 */
public record Prohibition(
    String sentence, String verb, String noun, List<String> objects, boolean enforceable) {
  public Prohibition {
    requireNonNull(sentence, "sentence is null");
    requireNonNull(verb, "verb is null");
    requireNonNull(noun, "noun is null");
    objects = List.copyOf(requireNonNull(objects, "objects is null"));
  }
}
