-- The PostgreSQL form of h2/V7__skills.sql: text is TEXT COLLATE "C" (compared and ordered by
-- code point, as on H2 and in Java, whatever the database's locale), bytes are BYTEA.
-- Control store version 7 (issue 18, skill learning): skill candidates (the seed's
-- skill_candidates; the candidate itself as JSON, beside the columns it is listed by), the
-- evidence each holds (skill_candidate_evidence: one row per memory record or accepted task, found
-- again by its subject), approvals (one per candidate), and the versions of published skills.
-- Version 6 is the maintenance daemon's. IF NOT EXISTS: H2 commits each DDL statement on its own,
-- so a start-up cut short may have left some behind.
CREATE TABLE IF NOT EXISTS skill_candidates (
  workspace_id TEXT COLLATE "C" NOT NULL,
  candidate_id TEXT COLLATE "C" NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  status VARCHAR(16) COLLATE "C" NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  candidate_json TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (workspace_id, candidate_id));

CREATE INDEX IF NOT EXISTS skill_candidates_by_update
  ON skill_candidates (workspace_id, updated_at DESC, candidate_id DESC);

CREATE INDEX IF NOT EXISTS skill_candidates_by_status
  ON skill_candidates (workspace_id, status, updated_at DESC, candidate_id DESC);

CREATE TABLE IF NOT EXISTS skill_candidate_evidence (
  workspace_id TEXT COLLATE "C" NOT NULL,
  candidate_id TEXT COLLATE "C" NOT NULL,
  subject TEXT COLLATE "C" NOT NULL,
  position INTEGER NOT NULL,
  kind VARCHAR(16) COLLATE "C" NOT NULL,
  evidence_json TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (workspace_id, candidate_id, subject));

CREATE INDEX IF NOT EXISTS skill_candidate_evidence_by_subject
  ON skill_candidate_evidence (workspace_id, subject);

CREATE TABLE IF NOT EXISTS approvals (
  approval_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  workspace_id TEXT COLLATE "C" NOT NULL,
  kind VARCHAR(32) COLLATE "C" NOT NULL,
  subject_id TEXT COLLATE "C" NOT NULL,
  state VARCHAR(16) COLLATE "C" NOT NULL,
  reason TEXT COLLATE "C" NOT NULL,
  created_at BIGINT NOT NULL,
  decided_at BIGINT,
  CONSTRAINT approvals_one_per_subject UNIQUE (workspace_id, kind, subject_id));

CREATE TABLE IF NOT EXISTS skill_versions (
  workspace_id TEXT COLLATE "C" NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  version INTEGER NOT NULL,
  candidate_id TEXT COLLATE "C" NOT NULL,
  description TEXT COLLATE "C" NOT NULL,
  etag TEXT COLLATE "C" NOT NULL,
  published_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, name, version));
