import { statements } from "../internal/statements.js"

// What the MCP endpoint's authorization server keeps (issue 37), one table for every kind of
// record: the server's, not an organisation's, so no export carries it. Secret ids (codes, tokens)
// arrive hashed. Only some kinds have a grant, a uid or a user code: those indexes skip the rest.
export default statements(
  `CREATE TABLE oauth_records (
    model text NOT NULL,
    id text NOT NULL,
    payload jsonb NOT NULL,
    grant_id text,
    uid text,
    user_code text,
    expires_at timestamptz,
    consumed_at timestamptz,
    PRIMARY KEY (model, id)
  )`,
  `CREATE INDEX oauth_records_grant ON oauth_records (grant_id) WHERE grant_id IS NOT NULL`,
  `CREATE INDEX oauth_records_uid ON oauth_records (model, uid) WHERE uid IS NOT NULL`,
  `CREATE INDEX oauth_records_user_code ON oauth_records (model, user_code) WHERE user_code IS NOT NULL`,
  // The purge reads by time alone.
  `CREATE INDEX oauth_records_expires ON oauth_records (expires_at)`,
  // A connected app's key: the grant it stands for (one key per grant) and the client it went to.
  `ALTER TABLE api_keys ADD COLUMN grant_id text UNIQUE, ADD COLUMN client_id text`
)
