package dev.memsidecar.sidecar.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Reads configuration YAML safely and predictably: only plain maps, lists and scalars are built (no
 * arbitrary objects), duplicate keys fail, and plain scalars resolve as in the YAML 1.2 core schema
 * rather than YAML 1.1: only {@code true}/{@code false} are booleans (so {@code yes}, {@code no},
 * {@code on}, {@code off} stay strings and a flag written that way fails), integers are decimal (no
 * octal, hex or sexagesimal surprises), and dates stay strings. Not thread-safe; make one per load.
 */
final class StrictYaml {
  private final Yaml yaml;

  StrictYaml() {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    options.setAllowRecursiveKeys(false);
    DumperOptions dumper = new DumperOptions();
    yaml =
        new Yaml(
            new SafeConstructor(options),
            new Representer(dumper),
            dumper,
            options,
            new CoreSchemaResolver());
  }

  /**
   * Every document of {@code file}, in order; an empty file gives no documents and an empty
   * document gives {@code null}.
   *
   * @param source how messages name the file, e.g. "config/memory/user.yaml"
   */
  List<Object> readAll(Path file, String source) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(source + ": cannot read: " + e, e);
    }
    List<Object> documents = new ArrayList<>();
    try {
      for (Object document : yaml.loadAll(text)) {
        documents.add(document);
      }
    } catch (YAMLException e) {
      throw new ConfigException(source + ": invalid YAML: " + e.getMessage(), e);
    }
    return documents;
  }

  /** The YAML 1.2 core schema's implicit types, minus timestamps and merge keys. */
  private static final class CoreSchemaResolver extends Resolver {
    private static final Pattern CORE_BOOL =
        Pattern.compile("^(?:true|True|TRUE|false|False|FALSE)$");
    private static final Pattern CORE_INT = Pattern.compile("^[-+]?(?:0|[1-9][0-9]*)$");
    private static final Pattern CORE_FLOAT =
        Pattern.compile(
            "^(?:[-+]?(?:[0-9]+\\.[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
                + "|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$");

    @Override
    protected void addImplicitResolvers() {
      addImplicitResolver(Tag.BOOL, CORE_BOOL, "tTfF");
      addImplicitResolver(Tag.INT, CORE_INT, "-+0123456789");
      addImplicitResolver(Tag.FLOAT, CORE_FLOAT, "-+0123456789.");
      addImplicitResolver(Tag.NULL, NULL, "~nN\0");
      addImplicitResolver(Tag.NULL, EMPTY, null);
    }
  }
}
