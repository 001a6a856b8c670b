import { statements } from "../internal/statements.js"

// A key acts for one of the organisation's settings users (or nobody): the users live in the
// settings document, so the column has no foreign key.
export default statements(
  `ALTER TABLE api_keys ADD COLUMN owner_id uuid`,
  `CREATE TABLE notes (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    entity_type text NOT NULL,
    entity_id uuid NOT NULL,
    type text NOT NULL,
    body text NOT NULL,
    call_id uuid,
    author_key_id uuid,
    created_at timestamptz NOT NULL
  )`,
  // The timeline reads one entity's notes newest first.
  `CREATE INDEX notes_entity ON notes (organisation_id, entity_type, entity_id, created_at DESC, id DESC)`
)
