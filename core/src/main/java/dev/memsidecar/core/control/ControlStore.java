package dev.memsidecar.core.control;

import dev.memsidecar.core.learning.LearningStore;
import dev.memsidecar.core.maintenance.MaintenanceStore;
import dev.memsidecar.core.run.RunStore;
import dev.memsidecar.core.sessions.SessionStore;
import dev.memsidecar.core.skills.SkillStore;
import dev.memsidecar.core.toolrules.ToolRuleStore;

/**
 * What the sidecar itself must remember, apart from the memories in the providers (the control
 * plane), in one database: what runs keep ({@link RunStore}: BeginRun snapshots, EndRun results,
 * the audit of write decisions) and what tool rules keep ({@link ToolRuleStore}: rules, stats, the
 * audit of enforcement), what sessions keep ({@link SessionStore}), what learning keeps ({@link
 * LearningStore}: run receipts, tasks, skill effects) and what skill learning keeps ({@link
 * SkillStore}: candidates, their evidence and approvals, published skills) and what maintenance
 * keeps ({@link MaintenanceStore}: each target's last run; it also prunes the audit). The packages
 * that use it declare those interfaces and see this package not at all, so the arrow points one
 * way: {@code control -> run, toolrules, sessions, learning, skills, maintenance}. Embedded H2
 * under the data directory by default, or a PostgreSQL database that several sidecars share ({@link
 * SqlControlStore}). Every write is durable when its method returns ({@code kill -9} loses nothing
 * acknowledged). Thread-safe.
 */
public interface ControlStore
    extends RunStore, ToolRuleStore, SessionStore, LearningStore, SkillStore, MaintenanceStore {

  /** Closes the database; its file stays. Idempotent. */
  @Override
  void close();
}
