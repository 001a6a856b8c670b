import { statements } from "../internal/statements.js"

// The people who sign in (issue 36). Accounts, sessions, mailed links and failed sign-ins are the
// store's, not an organisation's: one person may belong to several organisations. Memberships,
// invitations and the audit trail name their organisation and go with it (ON DELETE CASCADE).
// Every token is stored as its SHA-256 only.
export default statements(
  `CREATE TABLE accounts (
    id uuid PRIMARY KEY,
    email text NOT NULL UNIQUE,
    name text NOT NULL,
    password_hash text,
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE memberships (
    organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    role text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (organisation_id, account_id)
  )`,
  // What a person belongs to, at every request of theirs.
  `CREATE INDEX memberships_account ON memberships (account_id)`,
  `CREATE TABLE invitations (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
    email text NOT NULL,
    role text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    invited_by jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    accepted_at timestamptz,
    revoked_at timestamptz
  )`,
  `CREATE INDEX invitations_recent ON invitations (organisation_id, created_at DESC, id DESC)`,
  `CREATE TABLE sessions (
    id uuid PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    device text,
    address text,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL,
    revoked_at timestamptz
  )`,
  `CREATE INDEX sessions_account ON sessions (account_id)`,
  `CREATE TABLE people_links (
    token_hash text PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose text NOT NULL,
    created_at timestamptz NOT NULL,
    used_at timestamptz
  )`,
  `CREATE TABLE sign_in_failures (
    subject text NOT NULL,
    at timestamptz NOT NULL
  )`,
  `CREATE INDEX sign_in_failures_subject ON sign_in_failures (subject, at)`,
  `CREATE TABLE audit_log (
    id uuid PRIMARY KEY,
    organisation_id uuid REFERENCES organisations (id) ON DELETE CASCADE,
    at timestamptz NOT NULL,
    actor jsonb NOT NULL,
    action text NOT NULL,
    target jsonb,
    address text,
    summary jsonb NOT NULL
  )`,
  `CREATE INDEX audit_log_recent ON audit_log (organisation_id, at DESC, id DESC)`,
  // The purge reads by time alone, across organisations.
  `CREATE INDEX audit_log_at ON audit_log (at)`,
  // Who made the key in the settings screen (null: the operator), and when it was last used. No
  // foreign key: a key carried to another store by an organisation's export keeps its maker's id,
  // whom that store does not know.
  `ALTER TABLE api_keys ADD COLUMN created_by uuid`,
  `ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz`,
  // A message whose body holds a one-time link is listed withheld; those queued before were not.
  `ALTER TABLE mail_outbox ADD COLUMN withheld boolean NOT NULL DEFAULT false`
)
