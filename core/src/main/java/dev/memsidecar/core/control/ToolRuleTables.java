package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlDatabase.SAVE_ATTEMPTS;
import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.toolrules.ToolRule;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Tool rules per workspace and tool ({@code tool_rules}, {@link ControlSchema}).
 *
 * <p>A rule is keyed by its id and, apart, by its normalised text ({@link ToolRuleText}), both
 * unique per workspace and tool. A put updates the row of the same id, else the row of the same
 * text (keeping that row's id and create time), else inserts; an insert that loses a race to a
 * concurrent put of the same rule fails on the unique key and updates the winner's row instead, so
 * the same rule is always one row. A rule without an id gets a random UUID. Every put and delete
 * then raises the workspace's rules version ({@code tool_rule_versions}), which sidecars that keep
 * the rules in memory compare before using them. Thread-safe.
 */
final class ToolRuleTables {
  private static final String COLUMNS =
      "id, tool_name, rule, priority, source, tags_json, objects_json, created_at, updated_at";
  private static final String ORDER = order();

  /** The {@code WHERE} clause of one rule's row. */
  private static final String BY_ID = " WHERE workspace_id = ? AND tool_name = ? AND id = ?";

  private final ControlDatabase db;

  ToolRuleTables(ControlDatabase db) {
    this.db = db;
  }

  /** A rule to write, with what it is stored as. */
  private record Row(
      ToolRule rule, String key, String tags, String objects, long created, long updated) {}

  ToolRule put(String workspaceId, ToolRule rule) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(rule, "rule is null");
    String tool = rule.toolName();
    if (tool.isEmpty()) {
      throw MemoryException.invalidArgument("rule.tool_name", "a tool rule needs a tool name");
    }
    String whose = "the rule of tool " + tool;
    db.checkText("rule.tool_name", whose, tool);
    db.checkText("rule.id", whose, rule.id());
    db.checkText("rule.rule", whose, rule.rule());
    String key = ToolRuleText.key(rule.rule());
    if (key.isEmpty()) {
      throw MemoryException.invalidArgument(
          "rule.rule", "the rule of tool " + tool + " has no words: \"" + rule.rule() + "\"");
    }
    long created = ControlSchema.exactNanos(rule.createTime(), "createTime");
    long updated = ControlSchema.exactNanos(rule.updateTime(), "updateTime");
    Row row =
        new Row(
            rule,
            key,
            ControlJson.write(rule.tags()),
            ControlJson.write(rule.objects()),
            created,
            updated);
    ToolRule stored =
        db.run(
            "put a rule of tool " + tool,
            c -> {
              for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
                if (!rule.id().isEmpty()) {
                  Optional<Long> byId = createdAt(c, workspaceId, tool, rule.id());
                  if (byId.isPresent()) {
                    try {
                      if (update(c, workspaceId, rule.id(), null, row)) {
                        return stored(rule, rule.id(), byId.get());
                      }
                    } catch (SQLException e) {
                      if (!db.isDuplicateKey(e)) {
                        throw e;
                      }
                      throw sameTextElsewhere(c, workspaceId, rule, key);
                    }
                    continue; // deleted in between: start again
                  }
                }
                Optional<String> byText = idOf(c, workspaceId, tool, key);
                if (byText.isPresent()) {
                  Optional<Long> createdAt = createdAt(c, workspaceId, tool, byText.get());
                  if (createdAt.isPresent() && update(c, workspaceId, byText.get(), key, row)) {
                    return stored(rule, byText.get(), createdAt.get());
                  }
                  continue; // changed or deleted in between: start again
                }
                String id = rule.id().isEmpty() ? UUID.randomUUID().toString() : rule.id();
                if (insert(c, workspaceId, id, row)) {
                  return stored(rule, id, created);
                }
                // Another writer inserted the same id or the same text first: update that row.
              }
              throw MemoryException.aborted(
                  "putting a rule of tool " + tool + " lost " + SAVE_ATTEMPTS + " races; retry");
            });
    bumpVersion(workspaceId);
    return stored;
  }

  /**
   * The version of the workspace's rules: raised after every put and delete, so a reader that keeps
   * the rules in memory knows when to read them again (0 before the first write).
   */
  long version(String workspaceId) {
    return db.run(
        "read the version of the tool rules",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT version FROM "
                      + ControlSchema.TOOL_RULE_VERSIONS
                      + " WHERE workspace_id = ?")) {
            st.setString(1, workspaceId);
            try (ResultSet rs = st.executeQuery()) {
              return rs.next() ? rs.getLong(1) : 0L;
            }
          }
        });
  }

  /** Raises the version of the workspace's rules, creating its row. */
  private void bumpVersion(String workspaceId) {
    db.run(
        "raise the version of the tool rules",
        c -> {
          for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
            try (PreparedStatement st =
                c.prepareStatement(
                    "UPDATE "
                        + ControlSchema.TOOL_RULE_VERSIONS
                        + " SET version = version + 1 WHERE workspace_id = ?")) {
              st.setString(1, workspaceId);
              if (st.executeUpdate() == 1) {
                return null;
              }
            }
            try (PreparedStatement st =
                c.prepareStatement(
                    "INSERT INTO "
                        + ControlSchema.TOOL_RULE_VERSIONS
                        + " (workspace_id, version) VALUES (?, 1)")) {
              st.setString(1, workspaceId);
              if (db.insertUnlessTaken(st)) {
                return null;
              }
            }
          }
          throw MemoryException.aborted("raising the version of the tool rules lost races; retry");
        });
  }

  Optional<ToolRule> get(String workspaceId, String toolName, String id) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    requireNonNull(id, "id is null");
    return db.run(
        "read rule " + id + " of tool " + toolName,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT " + COLUMNS + " FROM " + ControlSchema.TOOL_RULES + BY_ID)) {
            bindId(st, workspaceId, toolName, id);
            try (ResultSet rs = st.executeQuery()) {
              return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
          }
        });
  }

  List<ToolRule> list(String workspaceId, String toolName) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    String sql =
        "SELECT "
            + COLUMNS
            + " FROM "
            + ControlSchema.TOOL_RULES
            + " WHERE workspace_id = ?"
            + (toolName.isEmpty() ? "" : " AND tool_name = ?")
            + ORDER;
    return db.run(
        toolName.isEmpty() ? "list tool rules" : "list the rules of tool " + toolName,
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql)) {
            st.setString(1, workspaceId);
            if (!toolName.isEmpty()) {
              st.setString(2, toolName);
            }
            List<ToolRule> rules = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                rules.add(read(rs));
              }
            }
            return List.copyOf(rules);
          }
        });
  }

  boolean delete(String workspaceId, String toolName, String id) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    requireNonNull(id, "id is null");
    boolean deleted =
        db.run(
            "delete rule " + id + " of tool " + toolName,
            c -> {
              try (PreparedStatement st =
                  c.prepareStatement("DELETE FROM " + ControlSchema.TOOL_RULES + BY_ID)) {
                bindId(st, workspaceId, toolName, id);
                return st.executeUpdate() > 0;
              }
            });
    if (deleted) {
      bumpVersion(workspaceId);
    }
    return deleted;
  }

  /** {@code rule} as stored under {@code id}, first written at {@code created}. */
  private static ToolRule stored(ToolRule rule, String id, long created) {
    return new ToolRule(
        id,
        rule.toolName(),
        rule.rule(),
        rule.priority(),
        rule.source(),
        rule.tags(),
        ControlSchema.instant(created),
        rule.updateTime(),
        rule.objects());
  }

  /** The create time of rule {@code id} of {@code tool}, if there is one. */
  private static Optional<Long> createdAt(Connection c, String workspaceId, String tool, String id)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement("SELECT created_at FROM " + ControlSchema.TOOL_RULES + BY_ID)) {
      bindId(st, workspaceId, tool, id);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    }
  }

  /** The id of the rule of {@code tool} whose normalised text has {@code key}, if there is one. */
  private static Optional<String> idOf(Connection c, String workspaceId, String tool, String key)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT id FROM "
                + ControlSchema.TOOL_RULES
                + " WHERE workspace_id = ? AND tool_name = ? AND rule_key = ?")) {
      bindId(st, workspaceId, tool, key);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /**
   * Overwrites rule {@code id} with {@code row}, keeping its create time; only while its key is
   * still {@code expectedKey} unless that is null. False if no such row.
   */
  private static boolean update(
      Connection c, String workspaceId, String id, String expectedKey, Row row)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.TOOL_RULES
                + " SET rule = ?, rule_key = ?, priority = ?, source = ?, tags_json = ?,"
                + " objects_json = ?, updated_at = ?"
                + BY_ID
                + (expectedKey == null ? "" : " AND rule_key = ?"))) {
      st.setString(1, row.rule().rule());
      st.setString(2, row.key());
      st.setString(3, row.rule().priority().name());
      st.setString(4, row.rule().source().name());
      st.setString(5, row.tags());
      st.setString(6, row.objects());
      st.setLong(7, row.updated());
      st.setString(8, workspaceId);
      st.setString(9, row.rule().toolName());
      st.setString(10, id);
      if (expectedKey != null) {
        st.setString(11, expectedKey);
      }
      return st.executeUpdate() == 1;
    }
  }

  /** Inserts {@code row} as rule {@code id}; false if its id or its text is taken. */
  private boolean insert(Connection c, String workspaceId, String id, Row row) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.TOOL_RULES
                + " (workspace_id, tool_name, id, rule, rule_key, priority, source, tags_json,"
                + " objects_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                + " ?)")) {
      st.setString(1, workspaceId);
      st.setString(2, row.rule().toolName());
      st.setString(3, id);
      st.setString(4, row.rule().rule());
      st.setString(5, row.key());
      st.setString(6, row.rule().priority().name());
      st.setString(7, row.rule().source().name());
      st.setString(8, row.tags());
      st.setString(9, row.objects());
      st.setLong(10, row.created());
      st.setLong(11, row.updated());
      return db.insertUnlessTaken(st);
    }
  }

  /** ALREADY_EXISTS: rule {@code rule.id()} cannot take a text another rule of its tool has. */
  private static MemoryException sameTextElsewhere(
      Connection c, String workspaceId, ToolRule rule, String key) throws SQLException {
    String other = idOf(c, workspaceId, rule.toolName(), key).orElse("another rule");
    return new MemoryException(
        MemoryException.Code.ALREADY_EXISTS,
        "rule.rule",
        "rule "
            + rule.id()
            + " of tool "
            + rule.toolName()
            + " cannot take the text of rule "
            + other
            + " (the same rule once case, spacing and trailing punctuation are ignored);"
            + " update or delete that one",
        null);
  }

  /** Binds a workspace, a tool and one more key (an id, a rule key) from parameter 1 on. */
  private static void bindId(PreparedStatement st, String workspaceId, String tool, String id)
      throws SQLException {
    st.setString(1, workspaceId);
    st.setString(2, tool);
    st.setString(3, id);
  }

  private static ToolRule read(ResultSet rs) throws SQLException {
    String id = rs.getString(1);
    String tool = rs.getString(2);
    String where = "rule " + id + " of tool " + tool;
    return new ToolRule(
        id,
        tool,
        rs.getString(3),
        storedEnum(ToolRule.Priority.class, rs.getString(4), where),
        storedEnum(ToolRule.Source.class, rs.getString(5), where),
        List.of(ControlJson.read(rs.getString(6), String[].class, where + " (tags)")),
        ControlSchema.instant(rs.getLong(8)),
        ControlSchema.instant(rs.getLong(9)),
        List.of(ControlJson.read(rs.getString(7), String[].class, where + " (objects)")));
  }

  private static <E extends Enum<E>> E storedEnum(Class<E> type, String name, String where) {
    try {
      return Enum.valueOf(type, name);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "the control store holds an unknown "
              + type.getSimpleName()
              + " at "
              + where
              + ": "
              + name,
          e);
    }
  }

  /** {@code ORDER BY} the rank of each priority in {@link ToolRule.Priority}, then newest. */
  private static String order() {
    StringBuilder sql = new StringBuilder(" ORDER BY CASE priority");
    for (ToolRule.Priority p : ToolRule.Priority.values()) {
      sql.append(" WHEN '").append(p.name()).append("' THEN ").append(p.ordinal());
    }
    return sql.append(" ELSE ")
        .append(ToolRule.Priority.values().length)
        .append(" END, updated_at DESC, id, tool_name")
        .toString();
  }
}
