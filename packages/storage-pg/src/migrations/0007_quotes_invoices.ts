import { statements } from "../internal/statements.js"

export default statements(
  // archived_at is never set (a quote expires or is cancelled, it is not archived); it is there
  // because the statements shared by every record table read only rows where it is null.
  `CREATE TABLE quotes (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    number text NOT NULL,
    status text NOT NULL,
    revision integer NOT NULL,
    currency text NOT NULL,
    contact_id uuid,
    company_id uuid,
    items jsonb NOT NULL,
    subtotal numeric NOT NULL,
    vat_total numeric NOT NULL,
    total numeric NOT NULL,
    vat_summary jsonb NOT NULL,
    valid_until date,
    vat_reason text,
    note text,
    invoice_id uuid,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX quotes_list ON quotes (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  // One per list filter, each already in list order, so a filtered page stops after limit + 1 rows.
  `CREATE INDEX quotes_status ON quotes (organisation_id, status, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX quotes_contact ON quotes (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND contact_id IS NOT NULL`,
  `CREATE INDEX quotes_company ON quotes (organisation_id, company_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND company_id IS NOT NULL`,
  // The expiry job: sent quotes past their validity.
  `CREATE INDEX quotes_expiring ON quotes (organisation_id, status, valid_until, id) WHERE archived_at IS NULL`,
  // The quote exactly as each send froze it, whatever later edits do to the row.
  `CREATE TABLE quote_revisions (
    organisation_id uuid NOT NULL,
    quote_id uuid NOT NULL,
    revision integer NOT NULL,
    sent_at timestamptz NOT NULL,
    quote jsonb NOT NULL,
    PRIMARY KEY (quote_id, revision)
  )`,
  // See quotes.archived_at: an invoice is cancelled or reversed, never archived.
  `CREATE TABLE invoices (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    number text,
    kind text NOT NULL,
    status text NOT NULL,
    issue_date date NOT NULL,
    due_date date NOT NULL,
    fulfilment_date date NOT NULL,
    currency text NOT NULL,
    exchange_rate numeric,
    contact_id uuid,
    company_id uuid,
    buyer jsonb NOT NULL,
    items jsonb NOT NULL,
    subtotal numeric NOT NULL,
    vat_total numeric NOT NULL,
    total numeric NOT NULL,
    vat_summary jsonb NOT NULL,
    paid_amount numeric NOT NULL,
    vat_reason text,
    note text,
    quote_id uuid,
    original_invoice_id uuid,
    storno_invoice_id uuid,
    issued_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE INDEX invoices_list ON invoices (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX invoices_status ON invoices (organisation_id, status, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX invoices_kind ON invoices (organisation_id, kind, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX invoices_contact ON invoices (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND contact_id IS NOT NULL`,
  `CREATE INDEX invoices_company ON invoices (organisation_id, company_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND company_id IS NOT NULL`,
  // The overdue job: issued and partly paid invoices past their due date.
  `CREATE INDEX invoices_due ON invoices (organisation_id, status, due_date, id) WHERE archived_at IS NULL`,
  // `recorded` orders payments made at the same instant by when they were written.
  `CREATE TABLE payments (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    invoice_id uuid NOT NULL,
    amount numeric NOT NULL,
    currency text NOT NULL,
    paid_on date NOT NULL,
    method text,
    reference text,
    created_at timestamptz NOT NULL,
    recorded bigserial NOT NULL
  )`,
  `CREATE INDEX payments_invoice ON payments (invoice_id, created_at, recorded)`,
  // One row per organisation, series and year: its lock is what makes concurrent issuers wait.
  `CREATE TABLE number_sequences (
    organisation_id uuid NOT NULL,
    series text NOT NULL,
    year integer NOT NULL,
    last integer NOT NULL,
    PRIMARY KEY (organisation_id, series, year)
  )`,
  // Shared by every organisation. The key serves `latest`: one pair, dates descending.
  `CREATE TABLE exchange_rates (
    date date NOT NULL,
    from_currency text NOT NULL,
    to_currency text NOT NULL,
    rate numeric NOT NULL,
    PRIMARY KEY (from_currency, to_currency, date)
  )`
)
