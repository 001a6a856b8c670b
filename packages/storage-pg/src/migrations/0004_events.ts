import { statements } from "../internal/statements.js"

export default statements(
  `CREATE TABLE events (
    id bigserial PRIMARY KEY,
    organisation_id uuid NOT NULL,
    event text NOT NULL,
    -- json, not jsonb: the payload keeps the catalogue's key order byte for byte, as it was written.
    data json NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  // The poll: one organisation's events after a cursor, in id order.
  `CREATE INDEX events_organisation_id ON events (organisation_id, id)`,
  // The retention job.
  `CREATE INDEX events_created_at ON events (created_at)`
)
