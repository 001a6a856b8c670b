import { statements } from "../internal/statements.js"

export default statements(
  // Custom records have no DELETE; `archived_at` is there because every live table shares the same statements.
  `CREATE TABLE custom_records (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    type_id uuid NOT NULL,
    type_key text NOT NULL,
    title text,
    owner_id uuid,
    custom jsonb NOT NULL DEFAULT '{}',
    contact_id uuid,
    company_id uuid,
    deal_id uuid,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX custom_records_list ON custom_records (organisation_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  // One per list filter, each already in list order, so a filtered page stops after limit + 1 rows.
  `CREATE INDEX custom_records_type ON custom_records (organisation_id, type_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX custom_records_contact ON custom_records (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND contact_id IS NOT NULL`,
  `CREATE INDEX custom_records_company ON custom_records (organisation_id, company_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND company_id IS NOT NULL`,
  `CREATE INDEX custom_records_deal ON custom_records (organisation_id, deal_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND deal_id IS NOT NULL`,
  // The form lives in the settings document, so there is no foreign key to follow.
  `CREATE TABLE form_submissions (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    form_id uuid NOT NULL,
    contact_id uuid NOT NULL,
    contact_created boolean NOT NULL,
    fields jsonb NOT NULL,
    visitor_id text,
    created_at timestamptz NOT NULL
  )`,
  // A form's counts read its submissions by time.
  `CREATE INDEX form_submissions_form ON form_submissions (organisation_id, form_id, created_at)`,
  `CREATE INDEX form_submissions_visitor ON form_submissions (organisation_id, visitor_id, created_at DESC, id DESC)
    WHERE visitor_id IS NOT NULL`,
  `CREATE TABLE visits (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    url text NOT NULL,
    referrer text,
    visitor_id text,
    contact_id uuid,
    occurred_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX visits_visitor ON visits (organisation_id, visitor_id, created_at DESC, id DESC)
    WHERE visitor_id IS NOT NULL AND contact_id IS NOT NULL`,
  // The key is what makes a provider's repeated delivery a no-op; contact_id and created are
  // filled in by the unit of work that claimed the row, before it commits.
  `CREATE TABLE leads (
    organisation_id uuid NOT NULL,
    provider text NOT NULL,
    external_id text NOT NULL,
    contact_id uuid,
    created boolean,
    received_at timestamptz NOT NULL,
    PRIMARY KEY (organisation_id, provider, external_id)
  )`
)
