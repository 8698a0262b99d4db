-- Control store version 3 (issue 17): sessions, their messages verbatim, and the inverted index of
-- the visible messages' terms that full-text search ranks with BM25.
CREATE TABLE IF NOT EXISTS sessions (
  workspace_id CHARACTER VARYING NOT NULL,
  user_id CHARACTER VARYING NOT NULL,
  session_id CHARACTER VARYING NOT NULL,
  agent_id CHARACTER VARYING NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  last_message_at BIGINT NOT NULL,
  last_seq BIGINT NOT NULL,
  message_count BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, user_id, session_id));

CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (workspace_id, user_id, updated_at, session_id);

CREATE TABLE IF NOT EXISTS session_messages (
  workspace_id CHARACTER VARYING NOT NULL,
  user_id CHARACTER VARYING NOT NULL,
  session_id CHARACTER VARYING NOT NULL,
  seq BIGINT NOT NULL,
  id CHARACTER VARYING NOT NULL,
  role VARCHAR(16) NOT NULL,
  name CHARACTER VARYING NOT NULL,
  content CHARACTER VARYING NOT NULL,
  message_at BIGINT NOT NULL,
  visible BOOLEAN NOT NULL,
  run_id CHARACTER VARYING NOT NULL,
  term_count INTEGER NOT NULL,
  extra_json CHARACTER VARYING NOT NULL,
  PRIMARY KEY (workspace_id, user_id, session_id, seq),
  CONSTRAINT session_messages_by_id UNIQUE (workspace_id, user_id, session_id, id));

CREATE INDEX IF NOT EXISTS session_messages_by_time ON session_messages (message_at);

CREATE TABLE IF NOT EXISTS session_terms (
  workspace_id CHARACTER VARYING NOT NULL,
  user_id CHARACTER VARYING NOT NULL,
  term CHARACTER VARYING NOT NULL,
  session_id CHARACTER VARYING NOT NULL,
  seq BIGINT NOT NULL,
  tf INTEGER NOT NULL,
  term_count INTEGER NOT NULL,
  message_at BIGINT NOT NULL,
  role VARCHAR(16) NOT NULL,
  PRIMARY KEY (workspace_id, user_id, term, session_id, seq));

CREATE INDEX IF NOT EXISTS session_terms_by_message ON session_terms (workspace_id, user_id, session_id, seq);

CREATE TABLE IF NOT EXISTS session_stats (
  workspace_id CHARACTER VARYING NOT NULL,
  user_id CHARACTER VARYING NOT NULL,
  messages BIGINT NOT NULL,
  terms BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, user_id));
