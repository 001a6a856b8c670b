import { statements } from "../internal/statements.js"

export default statements(
  // Hard-deleted with their key: a subscription belongs to the key that made it.
  `CREATE TABLE webhook_hooks (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    target_url text NOT NULL,
    events text[] NOT NULL,
    active boolean NOT NULL,
    disabled_reason text,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_expires_at timestamptz,
    failing_since timestamptz,
    -- The dispatcher's lease: one claimant works a hook at a time; a dead one's lease runs out.
    lease_until timestamptz,
    lease_token uuid,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  // A key's hooks in list order (also what the per-key limit counts).
  `CREATE INDEX webhook_hooks_key ON webhook_hooks (key_id, created_at DESC, id DESC)`,
  // The hooks an appended event fans out to.
  `CREATE INDEX webhook_hooks_active ON webhook_hooks (organisation_id) WHERE active`,
  `CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    hook_id uuid NOT NULL REFERENCES webhook_hooks (id) ON DELETE CASCADE,
    event_id bigint NOT NULL,
    event text NOT NULL,
    -- The envelope serialised once at append: every attempt sends these very bytes.
    body text NOT NULL,
    status text NOT NULL,
    attempt_count integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    created_at timestamptz NOT NULL
  )`,
  // What a claim looks for: a hook's pending deliveries, oldest event first.
  `CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (hook_id, event_id) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_list ON webhook_deliveries (hook_id, event_id DESC, id DESC)`,
  `CREATE TABLE webhook_attempts (
    id bigserial PRIMARY KEY,
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at timestamptz NOT NULL,
    status_code integer,
    duration_ms integer NOT NULL,
    response_excerpt text,
    error text
  )`,
  `CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id)`
)
