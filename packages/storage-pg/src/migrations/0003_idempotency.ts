import { statements } from "../internal/statements.js"

export default statements(
  `CREATE TABLE idempotency (
    key_id text NOT NULL,
    idem_key text NOT NULL,
    fingerprint text NOT NULL,
    status integer NOT NULL,
    headers jsonb NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (key_id, idem_key)
  )`,
  `CREATE INDEX idempotency_created_at ON idempotency (created_at)`
)
