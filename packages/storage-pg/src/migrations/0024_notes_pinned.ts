import { statements } from "../internal/statements.js"

export default statements(
  // Notes written before the pin are unpinned.
  `ALTER TABLE notes ADD COLUMN pinned boolean NOT NULL DEFAULT false`,
  // The organisation's notes newest first, all of them or the pinned few, now that a list need not
  // name an entity (the entity's own list keeps `notes_entity`).
  `CREATE INDEX notes_recent ON notes (organisation_id, created_at DESC, id DESC)`,
  `CREATE INDEX notes_pinned ON notes (organisation_id, created_at DESC, id DESC) WHERE pinned`
)
