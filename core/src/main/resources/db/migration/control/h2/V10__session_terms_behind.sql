-- Control store version 10: a message's postings are written behind its append. An append
-- inserts a row here for each visible message, in its own transaction; the row is deleted in the
-- transaction that writes the message's postings to session_terms, so a message has its postings
-- exactly once whoever writes them (this process, or after a crash any process that finds the row
-- left), and a delete of the message deletes its row first. Messages appended before this version
-- have their postings already: the table starts empty.
CREATE TABLE IF NOT EXISTS session_unindexed (
  workspace_id CHARACTER VARYING NOT NULL,
  user_id CHARACTER VARYING NOT NULL,
  session_id CHARACTER VARYING NOT NULL,
  seq BIGINT NOT NULL,
  message_at BIGINT NOT NULL,
  appended_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, user_id, session_id, seq));
