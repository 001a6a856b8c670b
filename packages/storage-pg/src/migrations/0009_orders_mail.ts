import { statements } from "../internal/statements.js"

export default statements(
  // archived_at is never set (an order is cancelled, not archived); it is there because the
  // statements shared by every record table read only rows where it is null.
  `CREATE TABLE orders (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    order_number text NOT NULL,
    external_id text NOT NULL,
    fulfilment text NOT NULL,
    payment_status text NOT NULL,
    payment_method text,
    currency text NOT NULL,
    items jsonb NOT NULL,
    subtotal numeric NOT NULL,
    vat_total numeric NOT NULL,
    total numeric NOT NULL,
    vat_summary jsonb NOT NULL,
    tracking_url text,
    contact_id uuid NOT NULL,
    deal_id uuid,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz,
    CONSTRAINT orders_external_id UNIQUE (organisation_id, external_id)
  )`,
  `CREATE INDEX orders_list ON orders (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  // One per list filter, each already in list order, so a filtered page stops after limit + 1 rows.
  `CREATE INDEX orders_fulfilment ON orders (organisation_id, fulfilment, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX orders_payment ON orders (organisation_id, payment_status, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX orders_contact ON orders (organisation_id, contact_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE TABLE mail_outbox (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    recipient text NOT NULL,
    subject text NOT NULL,
    body text NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL,
    last_error text,
    next_attempt_at timestamptz,
    created_at timestamptz NOT NULL,
    sent_at timestamptz
  )`,
  `CREATE INDEX mail_outbox_list ON mail_outbox (organisation_id, created_at DESC, id DESC)`,
  // The worker's claim: queued messages by when they are due, across organisations.
  `CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at, id) WHERE status = 'queued'`
)
