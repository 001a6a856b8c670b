import { statements } from "../internal/statements.js"

/**
 * The list filters no index served (issue 38): each walked the organisation's list index and
 * filtered, so a filter matching nothing read every live row (at a million rows, 0.1-0.5 s). Like
 * the filter indexes of 0006-0012, each is in list order after its filter, so a page stops after
 * limit + 1 rows whatever the filter matches.
 *
 * The stock bands (ProductRepository's `stockBand` writes them in these terms): `COALESCE(stock, -1)`
 * counts untracked as -1, so untracked (-1) and out (0) are equalities read in list order, and the
 * bands on the organisation's threshold are ranges of the same key. Products with their own
 * threshold are ranged by their margin over it, `stock::bigint - low_stock_threshold` (bigint: no
 * overflow, whatever the row holds). Those ranges are not in list order: the planner reads them and
 * sorts when it expects few rows, and walks the list when it expects many, so it needs their
 * statistics, which it takes from no partial index's expressions: hence the statistics object,
 * and an ANALYZE so that a store already holding products has them at once.
 */
export default statements(
  `CREATE INDEX contacts_status ON contacts (organisation_id, status, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX tasks_done ON tasks (organisation_id, done, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX tasks_priority ON tasks (organisation_id, priority, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  // The assistant's list_tasks: open tasks, soonest due first (TaskRepository's `due` order).
  `CREATE INDEX tasks_open_due ON tasks (organisation_id, due_at, id) WHERE archived_at IS NULL AND NOT done`,
  `CREATE INDEX products_active ON products (organisation_id, active, created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX products_kind ON products (organisation_id, kind, created_at DESC, id DESC) WHERE archived_at IS NULL`,
  `CREATE INDEX products_stock ON products (organisation_id, COALESCE(stock, -1), created_at DESC, id DESC)
    WHERE archived_at IS NULL`,
  `CREATE INDEX products_stock_own ON products (organisation_id, (stock::bigint - low_stock_threshold))
    WHERE archived_at IS NULL AND stock > 0 AND low_stock_threshold IS NOT NULL`,
  `CREATE STATISTICS products_stock_bands ON (COALESCE(stock, -1)), (stock::bigint - low_stock_threshold)
    FROM products`,
  `ANALYZE products`,
  // `GET /events?event=`: the organisation's events of one name, in id order from the cursor.
  `CREATE INDEX events_event ON events (organisation_id, event, id)`
)
