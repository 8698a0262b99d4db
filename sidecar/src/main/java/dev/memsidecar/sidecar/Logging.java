package dev.memsidecar.sidecar;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.logging.LogManager;

/**
 * The log of the sidecar (java.util.logging, which the libraries' SLF4J calls reach too): one line
 * per record on stderr, {@code 2026-11-26 04:27:11.123 WARNING dev.memsidecar.x: message}, at the
 * level {@code MEMSIDECAR_LOG_LEVEL} names ({@code error}, {@code warning} (default), {@code info},
 * {@code debug}, {@code trace}), so a normal start prints only the sidecar's own start line. A
 * {@code java.util.logging.config.file} given to the JVM wins over all of this.
 */
final class Logging {
  static final String ENV_LEVEL = "MEMSIDECAR_LOG_LEVEL";

  private static final Map<String, String> LEVELS =
      Map.of(
          "error", "SEVERE",
          "warning", "WARNING",
          "info", "INFO",
          "debug", "FINE",
          "trace", "FINEST");

  private Logging() {}

  /**
   * Configures the log as {@code env} says.
   *
   * @return a problem with {@code MEMSIDECAR_LOG_LEVEL} to report (the default level is used), or
   *     null
   */
  static String configure(Map<String, String> env) {
    if (System.getProperty("java.util.logging.config.file") != null) {
      return null;
    }
    String asked = env.getOrDefault(ENV_LEVEL, "").strip().toLowerCase(Locale.ROOT);
    String level = LEVELS.get(asked.isEmpty() ? "warning" : asked);
    String problem = null;
    if (level == null) {
      problem =
          ENV_LEVEL
              + " must be one of error, warning, info, debug, trace, not '"
              + asked
              + "'; logging at warning";
      level = "WARNING";
    }
    String config =
        String.join(
            "\n",
            "handlers=java.util.logging.ConsoleHandler",
            ".level=" + level,
            "java.util.logging.ConsoleHandler.level=ALL",
            "java.util.logging.ConsoleHandler.formatter=java.util.logging.SimpleFormatter",
            "java.util.logging.SimpleFormatter.format=%1$tF %1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
    try {
      LogManager.getLogManager()
          .readConfiguration(new ByteArrayInputStream(config.getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return problem;
  }
}
