import { statements } from "../internal/statements.js"

export default statements(
  `CREATE TABLE organisations (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    settings jsonb NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
    name text,
    hash text NOT NULL UNIQUE,
    scopes text[] NOT NULL,
    allowed_ips text[] NOT NULL DEFAULT '{}',
    expires_at timestamptz,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX api_keys_organisation ON api_keys (organisation_id)`
)
