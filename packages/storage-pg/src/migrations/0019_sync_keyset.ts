import { statements } from "../internal/statements.js"

/**
 * Sync walks (`order=updated_at&cursor=...`): each list a client can sync from reads the next page
 * as `(updated_at, id) > (cursor)` in that order, which these indexes answer by a range scan that
 * starts at the cursor, so a page deep in a million rows costs what the first one does. Not
 * partial: with `include_archived=true` the walk reads archived rows too (archiving stamps
 * `updated_at`), and without it the few archived rows are skipped on the way.
 */
const TABLES = [
  "contacts",
  "companies",
  "deals",
  "tasks",
  "products",
  "custom_records",
  "quotes",
  "invoices",
  "orders",
  "returns",
  "tickets",
  "purchase_orders"
] as const

export default statements(
  ...TABLES.map((table) => `CREATE INDEX ${table}_sync ON ${table} (organisation_id, updated_at, id)`)
)
