import { statements } from "../internal/statements.js"

export default statements(
  // The one secret the sync lists' cursors are signed with (core `Cursors`): at most one row, made
  // by the first process that gives out a cursor, shared by every process on the database after.
  `CREATE TABLE cursor_secret (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    secret text NOT NULL
  )`
)
