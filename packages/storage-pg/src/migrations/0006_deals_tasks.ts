import { statements } from "../internal/statements.js"

export default statements(
  `CREATE TABLE deals (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    title text NOT NULL,
    value numeric,
    currency text NOT NULL,
    pipeline_id uuid NOT NULL,
    status_id uuid NOT NULL,
    status_kind text NOT NULL,
    contact_id uuid,
    company_id uuid,
    owner_id uuid,
    expected_close_date date,
    lost_reason text,
    closed_at timestamptz,
    custom jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX deals_list ON deals (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  // One per list filter, each already in list order, so a filtered page stops after limit + 1 rows.
  `CREATE INDEX deals_status_kind ON deals (organisation_id, status_kind, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX deals_pipeline ON deals (organisation_id, pipeline_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX deals_contact ON deals (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND contact_id IS NOT NULL`,
  `CREATE INDEX deals_company ON deals (organisation_id, company_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND company_id IS NOT NULL`,
  // No foreign key to deals: history outlives an archived deal, as in every other table here.
  `CREATE TABLE deal_stage_visits (
    id bigserial PRIMARY KEY,
    organisation_id uuid NOT NULL,
    deal_id uuid NOT NULL,
    pipeline_id uuid NOT NULL,
    from_status_id uuid,
    status_id uuid NOT NULL,
    status_kind text NOT NULL,
    entered_at timestamptz NOT NULL,
    left_at timestamptz,
    key_id uuid
  )`,
  // A deal is in one stage at a time: a second open visit is refused rather than stored. Also
  // what `enterStage` finds the visit to close by.
  `CREATE UNIQUE INDEX deal_stage_visits_open ON deal_stage_visits (organisation_id, deal_id) WHERE left_at IS NULL`,
  // A deal's history, oldest first.
  `CREATE INDEX deal_stage_visits_deal ON deal_stage_visits (deal_id, entered_at)`,
  // Time spent in a stage (closed visits) and deals stalled in it (open ones).
  `CREATE INDEX deal_stage_visits_stage ON deal_stage_visits (organisation_id, status_id, left_at)`,
  // Recent wins and losses.
  `CREATE INDEX deal_stage_visits_kind ON deal_stage_visits (organisation_id, status_kind, entered_at)`,
  `CREATE TABLE tasks (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    title text NOT NULL,
    type text NOT NULL,
    priority text NOT NULL,
    due_at timestamptz,
    done boolean NOT NULL,
    completed_at timestamptz,
    assignee_id uuid,
    entity_type text,
    entity_id uuid,
    description text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX tasks_list ON tasks (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  // The tasks of a record and the tasks of a user, each in list order.
  `CREATE INDEX tasks_entity ON tasks (organisation_id, entity_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND entity_id IS NOT NULL`,
  `CREATE INDEX tasks_assignee ON tasks (organisation_id, assignee_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND assignee_id IS NOT NULL`
)
