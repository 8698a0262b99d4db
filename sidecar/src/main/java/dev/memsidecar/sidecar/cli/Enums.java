package dev.memsidecar.sidecar.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Contract enums as a terminal user writes them: "critical" for TOOL_RULE_PRIORITY_CRITICAL. */
final class Enums {
  private Enums() {}

  /**
   * The constant of {@code type} named {@code prefix + value} (any case), never the UNSPECIFIED
   * one.
   *
   * @throws CliException (usage) naming {@code flag} and the values it takes
   */
  static <E extends Enum<E>> E parse(Class<E> type, String prefix, String value, String flag) {
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      String n = Printer.name(e, prefix);
      if (n.equals("unspecified") || n.equals("unrecognized")) {
        continue;
      }
      if (n.equals(value.toLowerCase(Locale.ROOT))) {
        return e;
      }
      names.add(n);
    }
    throw CliException.usage(flag + " must be one of " + String.join(", ", names) + ": " + value);
  }
}
