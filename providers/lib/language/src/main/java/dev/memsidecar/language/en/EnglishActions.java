package dev.memsidecar.language.en;

import dev.memsidecar.language.tool.ToolActions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The English words of the acts ({@link ToolActions}): a verb and the objects that make it an act
 * ("delete" + "files": {@code delete-files}; "drop" + "tables": {@code drop-tables}; "install" +
 * "packages": {@code install-packages}), and the act a verb means alone ("push", "deploy"). Read by
 * {@link EnglishProhibitions}. Immutable and thread-safe.
 */
final class EnglishActions {
  /**
   * A verb's acts.
   *
   * @param byObject the act each object word makes of it
   * @param alone the act of the verb without an object ("never push"), or empty
   */
  record VerbActs(Map<String, String> byObject, String alone) {}

  /** Verbs (lower-case, base form) and their acts. */
  static final Map<String, VerbActs> VERBS;

  /** Two words that are one verb: "force push", "shut down", "power off". */
  static final Map<String, String> PHRASAL =
      Map.of(
          "force push", "force-push",
          "force-push", "force-push",
          "shut down", "reboot",
          "power off", "reboot");

  /** Words between a verb and its object that narrow nothing: "delete <b>all the</b> files". */
  static final Set<String> DETERMINERS =
      Set.of(
          "the",
          "a",
          "an",
          "any",
          "all",
          "some",
          "my",
          "our",
          "your",
          "their",
          "these",
          "those",
          "this",
          "that",
          "its",
          "every",
          "each",
          "of",
          "new",
          "more",
          "other",
          "single",
          "such",
          "extra",
          "additional",
          "random",
          "arbitrary",
          "whatever");

  /** Words after which a verb starts a new act: "use the shell <b>to</b> delete files". */
  static final Set<String> PURPOSE =
      Set.of("to", "for", "that", "which", "who", "and", "or", "nor", "just", "ever", "even");

  private static final String FILES =
      "file files folder folders directory directories dir dirs anything everything something"
          + " stuff thing things";
  private static final String TABLES =
      "table tables database databases db dbs schema schemas collection collections index indexes"
          + " indices view views";
  private static final String ROWS =
      "row rows record records data entry entries document documents";
  private static final String PACKAGES =
      "package packages dependency dependencies dep deps library libraries lib libs module"
          + " modules software program programs app apps tool tools plugin plugins gem gems crate"
          + " crates extension extensions binary binaries anything something";
  private static final String DISKS = "disk disks drive drives partition partitions volume volumes";
  private static final String EDITED =
      "file files code source sources config configs configuration configurations document"
          + " documents";

  private static final Map<String, VerbActs> BUILDING = new HashMap<>();

  static {
    for (String verb : List.of("delete", "remove", "erase", "rm", "unlink", "trash", "del")) {
      verb(verb, "delete-files", FILES, "delete-files", TABLES, "drop-tables", ROWS, "delete-rows");
    }
    verb(
        "wipe",
        "delete-files",
        FILES,
        "delete-files",
        TABLES,
        "drop-tables",
        ROWS,
        "delete-rows",
        DISKS,
        "format-disk");
    verb("shred", "delete-files", FILES, "delete-files");
    verb("purge", "", FILES, "delete-files", TABLES, "drop-tables", ROWS, "delete-rows");
    verb("drop", "drop-tables", TABLES, "drop-tables", ROWS, "delete-rows");
    verb("truncate", "drop-tables", TABLES, "drop-tables", FILES, "delete-files");
    for (String verb : List.of("edit", "overwrite", "write")) {
      verb(verb, verb.equals("write") ? "" : "write-files", EDITED, "write-files");
    }
    for (String verb : List.of("modify", "change", "alter", "update", "create")) {
      verb(
          verb,
          "",
          EDITED,
          "write-files",
          "permission permissions owner owners ownership mode modes",
          "change-permissions");
    }
    verb("move", "move-files", FILES, "move-files");
    verb("rename", "move-files", FILES, "move-files");
    verb("install", "install-packages", PACKAGES, "install-packages");
    verb("add", "", "package packages dependency dependencies dep deps", "install-packages");
    verb("push", "push");
    verb("commit", "commit");
    verb("merge", "merge");
    for (String verb : List.of("deploy", "redeploy", "release", "ship", "rollout")) {
      verb(verb, "deploy");
    }
    verb("email", "send-email");
    verb("mail", "send-email");
    verb("e-mail", "send-email");
    verb("send", "", "email emails mail mails e-mail e-mails", "send-email");
    verb("reboot", "reboot");
    verb("shutdown", "reboot");
    verb(
        "restart",
        "",
        "machine machines server servers computer computers host hosts system",
        "reboot");
    verb("kill", "kill-processes", "process processes job jobs task tasks", "kill-processes");
    verb("terminate", "", "process processes job jobs task tasks", "kill-processes");
    verb("chmod", "change-permissions");
    verb("chown", "change-permissions");
    verb("download", "download");
    verb("format", "", DISKS, "format-disk");
    VERBS = Map.copyOf(BUILDING);
    for (VerbActs acts : VERBS.values()) {
      for (String act : acts.byObject().values()) {
        check(act);
      }
      if (!acts.alone().isEmpty()) {
        check(acts.alone());
      }
    }
    PHRASAL.values().forEach(EnglishActions::check);
  }

  private EnglishActions() {}

  private static void check(String act) {
    if (ToolActions.of(act).isEmpty()) {
      throw new IllegalStateException("no act " + act);
    }
  }

  /** A verb: its act alone, then pairs of (object words, act). */
  private static void verb(String verb, String alone, String... objectsAndActs) {
    Map<String, String> byObject = new HashMap<>();
    for (int i = 0; i + 1 < objectsAndActs.length; i += 2) {
      for (String object : objectsAndActs[i].split(" ")) {
        byObject.putIfAbsent(object, objectsAndActs[i + 1]);
      }
    }
    BUILDING.put(verb, new VerbActs(Map.copyOf(byObject), alone));
  }
}
