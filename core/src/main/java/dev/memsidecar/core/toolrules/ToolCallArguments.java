package dev.memsidecar.core.toolrules;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.memsidecar.language.tool.ToolArguments;

/**
 * Reads a CheckToolCall's {@code arguments_json} for the matcher ({@link ToolArguments}). Duplicate
 * keys and trailing content after the JSON value make it malformed (a tool might read the copy the
 * matcher did not). Never fails: blank gives no arguments; anything that is not one well-formed
 * JSON value is kept as one raw string ({@link ToolArguments#malformed(String)}), so malformed
 * arguments never skip the check. Stateless and thread-safe.
 */
final class ToolCallArguments {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private ToolCallArguments() {}

  /** The arguments of one call, read once to be matched against many rules. */
  static ToolArguments parse(String argumentsJson) {
    if (argumentsJson == null || argumentsJson.isBlank()) {
      return ToolArguments.none();
    }
    try {
      return ToolArguments.of(MAPPER.readValue(argumentsJson, Object.class));
    } catch (Exception e) { // JsonProcessingException, or a constraint such as nesting depth
      return ToolArguments.malformed(argumentsJson);
    }
  }
}
