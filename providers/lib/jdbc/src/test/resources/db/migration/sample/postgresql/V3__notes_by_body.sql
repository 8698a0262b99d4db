CREATE INDEX IF NOT EXISTS notes_by_body ON notes (body);
