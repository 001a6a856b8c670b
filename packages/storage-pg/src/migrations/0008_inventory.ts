import { statements } from "../internal/statements.js"

export default statements(
  // `stock` is the product's level (with variants: Σ of the tracked variants, NULL when none is),
  // kept by the ledger's appends for the stock filter; `options` and `variants` travel as JSON.
  `CREATE TABLE products (
    id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    sku text NOT NULL,
    name text NOT NULL,
    unit text NOT NULL,
    unit_price numeric NOT NULL,
    currency text NOT NULL,
    vat_rate numeric NOT NULL,
    active boolean NOT NULL,
    kind text NOT NULL,
    category text,
    low_stock_threshold integer,
    stock integer,
    options jsonb NOT NULL,
    variants jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz
  )`,
  `CREATE UNIQUE INDEX products_sku ON products (organisation_id, sku) WHERE archived_at IS NULL`,
  `CREATE INDEX products_list ON products (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX products_category ON products (organisation_id, category, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND category IS NOT NULL`,
  // One row per stock item: the product itself while it has no variants, else each variant. The
  // level is NULL while not tracked and never negative; it always equals Σ quantity of its ledger.
  `CREATE TABLE stock_levels (
    item_id uuid PRIMARY KEY,
    organisation_id uuid NOT NULL,
    product_id uuid NOT NULL,
    level integer CHECK (level >= 0)
  )`,
  `CREATE INDEX stock_levels_product ON stock_levels (product_id)`,
  // Append-only. `seq` gives the order movements were recorded in, which a timestamp cannot break ties of.
  `CREATE TABLE stock_movements (
    seq bigserial PRIMARY KEY,
    id uuid NOT NULL UNIQUE,
    organisation_id uuid NOT NULL,
    product_id uuid NOT NULL,
    variant_id uuid,
    kind text NOT NULL,
    quantity integer NOT NULL,
    level integer,
    key_id uuid,
    order_id uuid,
    note text,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX stock_movements_product ON stock_movements (organisation_id, product_id, seq DESC)`,
  `CREATE INDEX stock_movements_order ON stock_movements (organisation_id, order_id) WHERE order_id IS NOT NULL`
)
