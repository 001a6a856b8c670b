import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Every key of a tenant table leads with `organisation_id` (issue 39): primary keys, unique
 * constraints and indexes, and the foreign keys between tenant tables, so that the schema can be
 * distributed by organisation (Citus) or split across databases without a rewrite. Which tables
 * are tenant tables, and which are not and why: `internal/tenancy.ts`. `webhook_attempts`, the one
 * tenant table without the column, gets it from its delivery.
 *
 * On a live server (docs/scaling.md, "A schema ready to distribute by organisation", with the
 * locks measured on a million rows), three parts, two of them outside the migration's transaction:
 * `prepare` runs before it when this migration is the next to apply (the column added and filled in
 * batches, the new unique indexes built CONCURRENTLY); the migration itself only swaps constraints
 * onto those indexes and adds the foreign keys NOT VALID, which `Migrations.ts` validates afterwards
 * under a lock that lets reads and writes through. On a store that skipped `prepare` (a new one, or one
 * several migrations behind) the migration builds what is missing itself, in its transaction.
 */

/** A key to move onto `organisation_id`: the new index, and what becomes of it. */
interface Key {
  readonly table: string
  /** The index built, then renamed to `name` by the swap. */
  readonly index: string
  readonly columns: string
  readonly where?: string
  /**
   * A primary key or unique constraint named `name` takes the index; a plain unique index is
   * renamed; a lookup (not unique) is built beside the key and stays as it is.
   */
  readonly becomes: "primary" | "unique" | "index" | "lookup"
  readonly name: string
}

const primary = (table: string, columns = "organisation_id, id"): Key => ({
  table,
  index: `${table}_tenant_pkey`,
  columns,
  becomes: "primary",
  name: `${table}_pkey`
})

const KEYS: ReadonlyArray<Key> = [
  ...[
    "events",
    "companies",
    "contacts",
    "deals",
    "deal_stage_visits",
    "tasks",
    "quotes",
    "invoices",
    "payments",
    "products",
    "orders",
    "mail_outbox",
    "custom_records",
    "form_submissions",
    "visits",
    "webhook_hooks",
    "webhook_deliveries",
    "webhook_attempts",
    "tickets",
    "returns",
    "purchase_orders",
    "survey_responses",
    "calls",
    "sites",
    "site_pages",
    "site_posts",
    "booking_series",
    "bookings",
    "link_pages",
    "notes"
  ].map((table) => primary(table)),
  primary("quote_revisions", "organisation_id, quote_id, revision"),
  primary("stock_levels", "organisation_id, item_id"),
  primary("stock_movements", "organisation_id, seq"),
  {
    table: "stock_movements",
    index: "stock_movements_tenant_id_key",
    columns: "organisation_id, id",
    becomes: "unique",
    name: "stock_movements_id_key"
  },
  // Named in SiteRepository's answers to a taken path or slug: the names stay.
  {
    table: "site_pages",
    index: "site_pages_tenant_path",
    columns: "organisation_id, site_id, path",
    where: "archived_at IS NULL",
    becomes: "index",
    name: "site_pages_path"
  },
  {
    table: "site_posts",
    index: "site_posts_tenant_slug",
    columns: "organisation_id, site_id, slug",
    where: "archived_at IS NULL",
    becomes: "index",
    name: "site_posts_slug"
  },
  // The public page of a quote or an invoice names the document alone (`organisationOf`), which
  // the old primary keys served: without these it would read the whole table.
  ...["quotes", "invoices"].map(
    (table): Key => ({ table, index: `${table}_id`, columns: "id", becomes: "lookup", name: `${table}_id` })
  )
]

/** The foreign keys between tenant tables, each replaced by one that carries the organisation. */
const FOREIGN_KEYS: ReadonlyArray<{
  readonly table: string
  readonly name: string
  readonly column: string
  readonly references: string
  readonly onDelete: string
}> = [
  {
    table: "webhook_deliveries",
    name: "webhook_deliveries_hook_id_fkey",
    column: "hook_id",
    references: "webhook_hooks",
    onDelete: " ON DELETE CASCADE"
  },
  {
    table: "webhook_attempts",
    name: "webhook_attempts_delivery_id_fkey",
    column: "delivery_id",
    references: "webhook_deliveries",
    onDelete: " ON DELETE CASCADE"
  },
  { table: "site_pages", name: "site_pages_site_id_fkey", column: "site_id", references: "sites", onDelete: "" },
  { table: "site_posts", name: "site_posts_site_id_fkey", column: "site_id", references: "sites", onDelete: "" },
  {
    table: "bookings",
    name: "bookings_series_id_fkey",
    column: "series_id",
    references: "booking_series",
    onDelete: ""
  }
]

const indexText = (key: Key, concurrently: boolean) =>
  `CREATE ${key.becomes === "lookup" ? "" : "UNIQUE "}INDEX${concurrently ? " CONCURRENTLY" : ""} IF NOT EXISTS ${key.index}
    ON ${key.table} (${key.columns})${key.where === undefined ? "" : ` WHERE ${key.where}`}`

// The attempts' new column comes from their delivery: in batches for the rows already there, and
// through a trigger for those that a server of the previous release inserts without it meanwhile.
const FILL_ATTEMPTS = `UPDATE webhook_attempts a SET organisation_id = d.organisation_id
  FROM webhook_deliveries d WHERE d.id = a.delivery_id AND a.organisation_id IS NULL`

/**
 * A range of ids at a time ($1 < id <= $2), each holding its row locks briefly (0.2 s a batch at a
 * million rows). Each row's delivery is found by its key: as a join, the million took 30 s where
 * this takes 22 s (measured, docs/scaling.md).
 */
const FILL_ATTEMPTS_RANGE = `UPDATE webhook_attempts a
  SET organisation_id = (SELECT d.organisation_id FROM webhook_deliveries d WHERE d.id = a.delivery_id)
  WHERE a.id > $1::bigint AND a.id <= $2::bigint AND a.organisation_id IS NULL`
const FILL_BATCH = 10_000

const FILL_FUNCTION = `CREATE OR REPLACE FUNCTION crm_attempt_organisation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.organisation_id IS NULL THEN
    SELECT organisation_id INTO NEW.organisation_id FROM webhook_deliveries WHERE id = NEW.delivery_id;
  END IF;
  RETURN NEW;
END
$$`
const FILL_TRIGGER = `CREATE OR REPLACE TRIGGER crm_attempt_organisation BEFORE INSERT ON webhook_attempts
  FOR EACH ROW EXECUTE FUNCTION crm_attempt_organisation()`

/**
 * A validated CHECK that the column is set lets SET NOT NULL skip reading the table under its
 * ACCESS EXCLUSIVE lock; it is validated under SHARE UPDATE EXCLUSIVE, which lets writes through.
 */
const SET_CHECK = "webhook_attempts_organisation_id_set"

const hasAttemptsColumn = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ one: number }>`SELECT 1 AS one FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'webhook_attempts' AND column_name = 'organisation_id'`,
    (rows) => rows.length > 0
  )

const checkState = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ valid: boolean }>`SELECT convalidated AS valid FROM pg_constraint
      WHERE conrelid = 'webhook_attempts'::regclass AND conname = ${SET_CHECK}`,
    ([row]) => (row === undefined ? "missing" : row.valid ? "valid" : "invalid")
  )

/** Whether an index exists, and whether it is usable (a concurrent build that failed leaves it invalid). */
const indexState = (sql: SqlClient.SqlClient, name: string) =>
  Effect.map(
    sql<{ valid: boolean }>`SELECT i.indisvalid AS valid FROM pg_index i
      WHERE i.indexrelid = to_regclass(${name})`,
    ([row]) => (row === undefined ? "missing" : row.valid ? "valid" : "invalid")
  )

/**
 * Before the migration's transaction, on a live store: nothing here holds a lock that stops reads
 * or writes for longer than adding a column without a default takes. An index whose earlier
 * concurrent build failed is dropped (concurrently) and built again.
 */
export const prepare: Effect.Effect<void, unknown, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  if (!(yield* hasAttemptsColumn(sql))) {
    yield* sql.unsafe("ALTER TABLE webhook_attempts ADD COLUMN organisation_id uuid")
  }
  yield* sql.unsafe(FILL_FUNCTION)
  yield* sql.unsafe(FILL_TRIGGER)
  // Read after the trigger is in place: every row with a later id gets the column from it.
  const [attempts] = yield* sql<{ top: string }>`SELECT coalesce(max(id), 0)::text AS top FROM webhook_attempts`
  for (let from = 0; from < Number(attempts?.top ?? 0); from += FILL_BATCH) {
    yield* sql.unsafe(FILL_ATTEMPTS_RANGE, [from, from + FILL_BATCH])
  }
  const check = yield* checkState(sql)
  if (check === "missing") {
    yield* sql.unsafe(
      `ALTER TABLE webhook_attempts ADD CONSTRAINT ${SET_CHECK} CHECK (organisation_id IS NOT NULL) NOT VALID`
    )
  }
  if (check !== "valid") yield* sql.unsafe(`ALTER TABLE webhook_attempts VALIDATE CONSTRAINT ${SET_CHECK}`)
  for (const key of KEYS) {
    const state = yield* indexState(sql, key.index)
    if (state === "invalid") yield* sql.unsafe(`DROP INDEX CONCURRENTLY ${key.index}`)
    if (state !== "valid") yield* sql.unsafe(indexText(key, true))
  }
})

/** The migration, in the migrator's transaction: cheap when `prepare` ran, complete when it did not. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Each statement here holds its table's lock until COMMIT, so nothing `prepare` did is done again.
  // The attempts' column, filled here unless `prepare` did it and proved it (its check valid).
  if (!(yield* hasAttemptsColumn(sql))) {
    yield* sql.unsafe("ALTER TABLE webhook_attempts ADD COLUMN organisation_id uuid")
  }
  if ((yield* checkState(sql)) !== "valid") {
    // No attempt may arrive without the column between the fill and SET NOT NULL.
    yield* sql.unsafe("LOCK TABLE webhook_attempts IN SHARE ROW EXCLUSIVE MODE")
    yield* sql.unsafe(FILL_ATTEMPTS)
  }
  for (const key of KEYS) {
    const state = yield* indexState(sql, key.index)
    if (state === "invalid") yield* sql.unsafe(`DROP INDEX ${key.index}`)
    if (state !== "valid") yield* sql.unsafe(indexText(key, false))
  }
  // Every attempt has a delivery (its foreign key cascades), so none is left without the column.
  yield* sql.unsafe("ALTER TABLE webhook_attempts ALTER COLUMN organisation_id SET NOT NULL")
  yield* sql.unsafe(`ALTER TABLE webhook_attempts DROP CONSTRAINT IF EXISTS ${SET_CHECK}`)
  yield* sql.unsafe("DROP TRIGGER IF EXISTS crm_attempt_organisation ON webhook_attempts")
  yield* sql.unsafe("DROP FUNCTION IF EXISTS crm_attempt_organisation()")
  // The old foreign keys hang on the old primary keys: they go first, and come back carrying the
  // organisation once the new keys are in place.
  for (const fk of FOREIGN_KEYS) yield* sql.unsafe(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name}`)
  for (const key of KEYS) {
    if (key.becomes === "lookup") continue
    if (key.becomes === "index") {
      yield* sql.unsafe(`DROP INDEX ${key.name}`)
      yield* sql.unsafe(`ALTER INDEX ${key.index} RENAME TO ${key.name}`)
    } else {
      yield* sql.unsafe(`ALTER TABLE ${key.table} DROP CONSTRAINT ${key.name}`)
      yield* sql.unsafe(
        `ALTER TABLE ${key.table} ADD CONSTRAINT ${key.name} ${key.becomes === "primary" ? "PRIMARY KEY" : "UNIQUE"} USING INDEX ${key.index}`
      )
    }
  }
  // NOT VALID: checked for rows written from now on; the rows already there are checked after the
  // transaction (`Migrations.ts`), without holding up writes while the table is read.
  for (const fk of FOREIGN_KEYS) {
    yield* sql.unsafe(
      `ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} FOREIGN KEY (organisation_id, ${fk.column})
        REFERENCES ${fk.references} (organisation_id, id)${fk.onDelete} NOT VALID`
    )
  }
})
