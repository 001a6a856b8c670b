import { statements } from "../internal/statements.js"

export default statements(
  `CREATE TABLE companies (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    name text NOT NULL,
    domain text,
    email text,
    vat_number text,
    city text,
    country text,
    custom jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX companies_list ON companies (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE TABLE contacts (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    first_name text,
    last_name text,
    email text,
    phone text,
    company_id uuid,
    status text NOT NULL,
    source text,
    custom jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX contacts_list ON contacts (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  // At most one live holder per address; the service lower-cases addresses before they get here.
  `CREATE UNIQUE INDEX contacts_live_email ON contacts (organisation_id, email)
    WHERE archived_at IS NULL AND email IS NOT NULL`
)
