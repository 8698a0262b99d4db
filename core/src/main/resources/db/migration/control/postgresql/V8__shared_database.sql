-- The PostgreSQL form of h2/V8__shared_database.sql: text is TEXT COLLATE "C".
-- Control store version 8 (issue 20, many sidecars on one database).
-- maintenance_leases: the lease under which one sidecar at a time runs a maintenance pass. One row
-- per lease name: who holds it (owner), until when (expire_at, epoch nanoseconds; renewed while the
-- pass runs, taken over once past), and when the last pass taken under it started (pass_start), so
-- that each scheduled pass runs once.
CREATE TABLE IF NOT EXISTS maintenance_leases (
  name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  owner TEXT COLLATE "C" NOT NULL,
  expire_at BIGINT NOT NULL,
  pass_start BIGINT NOT NULL);

-- tool_rule_versions: per workspace, a number raised by every write of its tool rules, so that a
-- sidecar holding a workspace's rules in memory knows when another one changed them.
CREATE TABLE IF NOT EXISTS tool_rule_versions (
  workspace_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  version BIGINT NOT NULL);
