import { statements } from "../internal/statements.js"

// archived_at is never set on these tables (tickets close, returns and orders reach a final
// status, answers and calls are history); it is there because the statements shared by every
// record table read only rows where it is null.
export default statements(
  `CREATE TABLE tickets (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    number text NOT NULL,
    subject text NOT NULL,
    description text,
    status text NOT NULL,
    priority text NOT NULL,
    channel text NOT NULL,
    contact_id uuid,
    requester_email text NOT NULL,
    assigned_to uuid,
    sla_due_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX tickets_list ON tickets (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  // One per list filter, each already in list order, so a filtered page stops after limit + 1 rows.
  `CREATE INDEX tickets_status ON tickets (organisation_id, status, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX tickets_channel ON tickets (organisation_id, channel, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX tickets_contact ON tickets (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND contact_id IS NOT NULL`,
  // Breach checks look only at tickets whose clock still runs.
  `CREATE INDEX tickets_sla ON tickets (organisation_id, sla_due_at)
    WHERE archived_at IS NULL AND status IN ('open', 'pending') AND sla_due_at IS NOT NULL`,
  `CREATE TABLE returns (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    number text NOT NULL,
    order_id uuid NOT NULL,
    contact_id uuid,
    status text NOT NULL,
    reason text,
    items jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX returns_list ON returns (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX returns_status ON returns (organisation_id, status, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX returns_order ON returns (organisation_id, order_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX returns_contact ON returns (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND contact_id IS NOT NULL`,
  `CREATE TABLE purchase_orders (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    number text NOT NULL,
    supplier text NOT NULL,
    status text NOT NULL,
    items jsonb NOT NULL,
    note text,
    ordered_at timestamptz,
    received_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX purchase_orders_list ON purchase_orders (organisation_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX purchase_orders_status ON purchase_orders (organisation_id, status, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE TABLE survey_responses (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    survey_id uuid NOT NULL,
    kind text NOT NULL,
    score integer NOT NULL,
    comment text,
    contact_id uuid NOT NULL,
    deal_id uuid,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX survey_responses_list ON survey_responses (organisation_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX survey_responses_survey ON survey_responses (organisation_id, survey_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX survey_responses_contact ON survey_responses (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX survey_responses_deal ON survey_responses (organisation_id, deal_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND deal_id IS NOT NULL`,
  `CREATE TABLE calls (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    provider text NOT NULL,
    external_id text,
    direction text NOT NULL,
    status text NOT NULL,
    duration_seconds integer NOT NULL,
    from_number text NOT NULL,
    to_number text NOT NULL,
    contact_id uuid,
    recording_url text,
    started_at timestamptz NOT NULL,
    transcript text,
    summary text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX calls_list ON calls (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  // A contact's calls: the timeline's main query.
  `CREATE INDEX calls_contact ON calls (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND contact_id IS NOT NULL`
)
