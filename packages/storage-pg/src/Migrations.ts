/**
 * The schema, as numbered migrations applied in order: those written before the ports brought
 * their own, listed here, and those each port module brings (`PortModules.ts`). Listed by hand
 * (`fromRecord`) rather than found on disk, so that a bundled server carries them.
 */
import type { Errors } from "@crm/core"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { toStorageError } from "./internal/errors.js"
import access from "./migrations/0001_access.js"
import rateLimit from "./migrations/0002_rate_limit.js"
import idempotency from "./migrations/0003_idempotency.js"
import events from "./migrations/0004_events.js"
import records from "./migrations/0005_records.js"
import dealsTasks from "./migrations/0006_deals_tasks.js"
import quotesInvoices from "./migrations/0007_quotes_invoices.js"
import inventory from "./migrations/0008_inventory.js"
import ordersMail from "./migrations/0009_orders_mail.js"
import recordsForms from "./migrations/0010_records_forms.js"
import webhooks from "./migrations/0011_webhooks.js"
import serviceEntities from "./migrations/0012_service_entities.js"
import sitesBookings from "./migrations/0013_sites_bookings.js"
import keyOwnersNotes from "./migrations/0014_key_owners_notes.js"
import searchTrigrams from "./migrations/0015_search_trigrams.js"
import documentStock from "./migrations/0016_document_stock.js"
import webhookCircuit from "./migrations/0017_webhook_circuit.js"
import rateTakeOnce from "./migrations/0018_rate_take_once.js"
import syncKeyset from "./migrations/0019_sync_keyset.js"
import testClock from "./migrations/0020_test_clock.js"
import upsertKeys from "./migrations/0021_upsert_keys.js"
import idempotencyPayload from "./migrations/0022_idempotency_payload.js"
import cursorSecret from "./migrations/0023_cursor_secret.js"
import tenantKeys, { prepare as prepareTenantKeys } from "./migrations/0030_tenant_keys.js"
import archivedRows from "./migrations/0033_archived_rows.js"
import { type Migration, portMigrations } from "./PortModules.js"

const written: Readonly<Record<string, Migration>> = {
  "0001_access": access,
  "0002_rate_limit": rateLimit,
  "0003_idempotency": idempotency,
  "0004_events": events,
  "0005_records": records,
  "0006_deals_tasks": dealsTasks,
  "0007_quotes_invoices": quotesInvoices,
  "0008_inventory": inventory,
  "0009_orders_mail": ordersMail,
  "0010_records_forms": recordsForms,
  "0011_webhooks": webhooks,
  "0012_service_entities": serviceEntities,
  "0013_sites_bookings": sitesBookings,
  "0014_key_owners_notes": keyOwnersNotes,
  "0015_search_trigrams": searchTrigrams,
  "0016_document_stock": documentStock,
  "0017_webhook_circuit": webhookCircuit,
  "0018_rate_take_once": rateTakeOnce,
  "0019_sync_keyset": syncKeyset,
  "0020_test_clock": testClock,
  "0021_upsert_keys": upsertKeys,
  "0022_idempotency_payload": idempotencyPayload,
  "0023_cursor_secret": cursorSecret,
  "0030_tenant_keys": tenantKeys,
  "0033_archived_rows": archivedRows
}

/**
 * What a migration does before the transaction, by its number, when it is the next to apply: the
 * work that must not run inside one (CREATE INDEX CONCURRENTLY) or that would hold the
 * transaction's locks for as long as it reads a large table. A store further behind skips it, and
 * the migration does the same work in its transaction.
 */
const before: ReadonlyMap<number, Migration> = new Map([[30, prepareTenantKeys]])

/** Every migration by name; throws at load when two share a number, which the migrator would apply as one. */
export const migrations: Readonly<Record<string, Migration>> = (() => {
  const all = [...Object.entries(written), ...portMigrations]
  const numbers = new Map<number, string>()
  for (const [name] of all) {
    const number = Number.parseInt(name, 10)
    const other = numbers.get(number)
    if (other !== undefined) throw new Error(`two migrations are numbered ${number}: ${other} and ${name}`)
    numbers.set(number, name)
  }
  // In the order they apply, as whoever reads the record expects.
  return Object.fromEntries(all.sort(([x], [y]) => Number.parseInt(x, 10) - Number.parseInt(y, 10)))
})()

/** The migrator's record of what is applied (`migration_id`, `name`). */
export const TABLE = "crm_migrations"

// Any fixed bigint: it only has to differ from the keys the ports lock.
const MIGRATION_LOCK = "7260118003912470001"

const run = Migrator.make({})

/** The `before` step of the next migration, if it has one and the store has applied the ones before it. */
const beforeNext = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [table] = yield* sql<{ present: boolean }>`SELECT to_regclass(${TABLE}) IS NOT NULL AS present`
  if (table?.present !== true) return
  const [row] = yield* sql<{ last: number | null }>`SELECT max(migration_id) AS last FROM ${sql(TABLE)}`
  const step = row?.last == null ? undefined : before.get(row.last + 1)
  if (step !== undefined) yield* step
})

/**
 * Foreign keys a migration added NOT VALID (enforced for new rows at once), checked against the
 * rows already there after its transaction, under SHARE UPDATE EXCLUSIVE: reads and writes go on
 * while the table is read. Run at every `migrate`, so that a process stopped in between leaves none
 * unchecked; with none pending it is one catalogue query.
 */
const validateForeignKeys = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const pending = yield* sql<{ relation: string; name: string }>`SELECT conrelid::regclass::text AS relation,
      conname AS name
    FROM pg_constraint WHERE contype = 'f' AND NOT convalidated AND connamespace = current_schema()::regnamespace`
  for (const { name, relation } of pending) {
    yield* sql.unsafe(`ALTER TABLE ${relation} VALIDATE CONSTRAINT ${name}`)
  }
})

/**
 * Applies the migrations not yet applied; returns those it applied. Safe to run from several
 * processes at once: the first takes an advisory lock, the others wait and then find nothing to do.
 * The steps outside the transaction (`before`, and validating foreign keys) are each safe to repeat.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Errors.StorageError,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* beforeNext
  const applied = yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}::bigint)`
      // Created here (same shape as the migrator's own) because the migrator probes for the
      // table with a query that fails when it is missing, which would abort this transaction.
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(TABLE)} (
          migration_id integer PRIMARY KEY,
          created_at timestamptz NOT NULL DEFAULT now(),
          name text NOT NULL
        )`
      return yield* run({ loader: Migrator.fromRecord(migrations), table: TABLE })
    })
  )
  yield* validateForeignKeys
  return applied
}).pipe(
  // The migrator turns a failing migration into a defect; the caller should see a failure.
  Effect.catchAllDefect((defect) => Effect.fail(defect)),
  Effect.mapError(toStorageError("migrate")),
  Effect.withSpan("StoragePg.migrate")
)
