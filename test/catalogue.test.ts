/**
 * The schema is ready to be distributed by organisation (issue 39): read from the migrated
 * catalogue, every table is a tenant table or named in `GLOBAL_TABLES` with its reason, and every
 * key of a tenant table leads with `organisation_id` (primary keys, unique constraints and indexes,
 * foreign keys between tenant tables). Then the statements the store sends while the whole storage
 * contract runs on PGlite, read off the wire: each one naming a tenant table mentions
 * `organisation_id`, but for the sweeps `CROSS_TENANT_STATEMENTS` names.
 */

import * as StoragePg from "@crm/storage-pg"
import { runStorageContract } from "@crm/testing/contract"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CROSS_TENANT_STATEMENTS, GLOBAL_TABLES } from "../packages/storage-pg/src/internal/tenancy.js"
import { sharedStore } from "./support/contract.js"
import { freshDatabase, serverUrl } from "./support/pgDatabase.js"
import { pgliteStore, serverStore } from "./support/storages.js"

const TENANT = "organisation_id"

interface Key {
  readonly relation: string
  readonly name: string
  readonly kind: "primary key" | "unique constraint" | "unique index" | "foreign key"
  readonly columns: ReadonlyArray<string | null>
  readonly referenced: string | null
  readonly referencedColumns: ReadonlyArray<string> | null
}

/** What the rules are checked against, read from the store's catalogue. */
const catalogue = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string; tenant_column: "NO" | "YES" | null }>`
    SELECT t.table_name AS name, c.is_nullable AS tenant_column
    FROM information_schema.tables t
    LEFT JOIN information_schema.columns c ON c.table_schema = t.table_schema AND c.table_name = t.table_name
      AND c.column_name = ${TENANT}
    WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`
  // The columns in key order; a null stands for an expression.
  const keys = yield* sql<Key>`
    SELECT c.conrelid::regclass::text AS relation, c.conname AS name,
      CASE c.contype WHEN 'p' THEN 'primary key' WHEN 'u' THEN 'unique constraint' ELSE 'foreign key' END AS kind,
      ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
      NULLIF(c.confrelid, 0)::regclass::text AS referenced,
      CASE WHEN c.contype = 'f' THEN ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n)
        JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) END AS "referencedColumns"
    FROM pg_constraint c
    WHERE c.connamespace = current_schema()::regnamespace AND c.contype IN ('p', 'u', 'f')
    UNION ALL
    SELECT i.indrelid::regclass::text, x.relname::text, 'unique index',
      ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)
        LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE k.n <= i.indnkeyatts ORDER BY k.n),
      NULL, NULL
    FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid
    WHERE x.relnamespace = current_schema()::regnamespace AND i.indisunique
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u'))`
  return { tables, keys }
})

/** Every way the catalogue breaks the rules, one line each. */
const breaches = ({ keys, tables }: Effect.Effect.Success<typeof catalogue>): ReadonlyArray<string> => {
  const found: Array<string> = []
  const names = new Set(tables.map((table) => table.name))
  const isGlobal = (name: string) => Object.hasOwn(GLOBAL_TABLES, name)
  for (const name of Object.keys(GLOBAL_TABLES)) {
    if (!names.has(name)) found.push(`${name} is named global but no such table exists`)
  }
  for (const table of tables) {
    if (isGlobal(table.name)) continue
    if (table.tenant_column === null) found.push(`${table.name} has no ${TENANT} and is not named global`)
    else if (table.tenant_column === "YES") found.push(`${table.name}.${TENANT} may be null`)
  }
  for (const key of keys) {
    const from = isGlobal(key.relation)
    const to = key.referenced === null ? undefined : isGlobal(key.referenced)
    if (key.kind === "foreign key") {
      // A tenant row may name a global one (its organisation, a person, a key): those are whole everywhere.
      if (to === true) continue
      if (from) found.push(`${key.relation}.${key.name}: a global table refers to the tenant table ${key.referenced}`)
      else if (key.columns[0] !== TENANT || key.referencedColumns?.[0] !== TENANT) {
        found.push(
          `${key.relation}.${key.name}: foreign key (${key.columns.join(", ")}) references ${key.referenced} (${key.referencedColumns?.join(", ")})`
        )
      }
    } else if (!from && key.columns[0] !== TENANT) {
      found.push(`${key.relation}.${key.name}: ${key.kind} (${key.columns.map((c) => c ?? "expression").join(", ")})`)
    }
  }
  return found.sort()
}

const stores = [
  ["pglite", pgliteStore] as const,
  ...(serverUrl === undefined ? [] : [["postgres", () => serverStore()] as const])
]

for (const [name, store] of stores) {
  it(`[${name}] every key of a tenant table leads with ${TENANT}, and every other table is named global`, async () => {
    const found = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const context = yield* Layer.build(store())
          return breaches(
            yield* Effect.provideService(catalogue, SqlClient.SqlClient, Context.get(context, SqlClient.SqlClient))
          )
        })
      )
    )
    expect(found).toEqual([])
  })
}

const ORG = "00000000-0000-4000-8000-000000000001"
const DELIVERY = "00000000-0000-4000-8000-000000000004"

/**
 * A store at migration 0029, as a live server left it, holding a hook with a delivery and its
 * attempts: what `0030_tenant_keys` moves online (`prepare`, the transaction, then validation).
 */
const storeAt29 = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const before30 = Object.fromEntries(
    Object.entries(StoragePg.migrations).filter(([name]) => Number.parseInt(name, 10) < 30)
  )
  yield* Migrator.make({})({ loader: Migrator.fromRecord(before30), table: "crm_migrations" })
  yield* sql`INSERT INTO organisations (id, name, settings, created_at) VALUES (${ORG}, 'o', '{}', now())`
  yield* sql`INSERT INTO api_keys (id, organisation_id, name, hash, scopes, created_at)
    VALUES ('00000000-0000-4000-8000-000000000002', ${ORG}, 'k', 'h', '{}', now())`
  yield* sql`INSERT INTO webhook_hooks (id, organisation_id, key_id, target_url, events, active, secret, created_at, updated_at)
    VALUES ('00000000-0000-4000-8000-000000000003', ${ORG}, '00000000-0000-4000-8000-000000000002',
      'https://example.com', '{contact.created}', true, 's', now(), now())`
  yield* sql`INSERT INTO webhook_deliveries (id, organisation_id, hook_id, event_id, event, body, status, created_at)
    VALUES (${DELIVERY}, ${ORG}, '00000000-0000-4000-8000-000000000003', 1, 'contact.created', '{}', 'pending', now())`
  yield* sql`INSERT INTO webhook_attempts (delivery_id, attempted_at, duration_ms)
    SELECT ${DELIVERY}, now(), 1 FROM generate_series(1, 3)`
})

const upgraded = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* storeAt29
  const applied = yield* StoragePg.migrate
  const attempts = yield* sql<{ organisation_id: string }>`SELECT organisation_id FROM webhook_attempts`
  const left = yield* sql<{ name: string }>`SELECT conname AS name FROM pg_constraint
      WHERE connamespace = current_schema()::regnamespace AND NOT convalidated
    UNION ALL SELECT relname FROM pg_class WHERE relname LIKE '%\\_tenant\\_%'
    UNION ALL SELECT proname FROM pg_proc WHERE proname = 'crm_attempt_organisation'`
  // The new foreign keys cascade as the old ones did.
  yield* sql`DELETE FROM webhook_hooks WHERE organisation_id = ${ORG}`
  const [remaining] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_attempts`
  return {
    applied: applied.map(([id]) => id),
    attempts,
    left,
    remaining: remaining?.n,
    found: breaches(yield* catalogue)
  }
})

const emptyStores = [
  ["pglite", () => StoragePg.PgliteClient.layer()] as const,
  ...(serverUrl === undefined
    ? []
    : [
        [
          "postgres",
          () =>
            Layer.unwrapScoped(
              Effect.map(freshDatabase(serverUrl!), (database) =>
                PgClient.layer({ url: Redacted.make(database.url) }).pipe(Layer.provide(Reactivity.layer))
              )
            )
        ] as const
      ])
]

for (const [name, store] of emptyStores) {
  it(`[${name}] a store at 0029 holding rows is migrated with its tenant keys, the attempts given their organisation`, async () => {
    const result = await Effect.runPromise(Effect.scoped(Effect.provide(upgraded, store())))
    expect(result.applied).toContain(30)
    expect(result.attempts).toEqual(Array.from({ length: 3 }, () => ({ organisation_id: ORG })))
    // Nothing of the online steps is left behind: every key validated, no spare index, no trigger.
    expect(result.left).toEqual([])
    expect(result.remaining).toBe(0)
    expect(result.found).toEqual([])
  })
}

/**
 * The statement texts of one batch of frontend messages as PGlite receives it (`pgliteWire.ts`
 * writes them): a Parse's query and a simple Query's text; the rest carries no text.
 */
const texts = (batch: Uint8Array): ReadonlyArray<string> => {
  const buffer = Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength)
  const found: Array<string> = []
  for (let at = 0; at + 5 <= buffer.length; ) {
    const type = String.fromCharCode(buffer[at]!)
    const end = at + 1 + buffer.readInt32BE(at + 1)
    const body = buffer.subarray(at + 5, end)
    if (type === "Q") found.push(body.subarray(0, body.indexOf(0)).toString())
    if (type === "P") {
      const query = body.indexOf(0) + 1
      found.push(body.subarray(query, body.indexOf(0, query)).toString())
    }
    at = end
  }
  return found
}

const tenantTables = (all: ReadonlyArray<string>) => all.filter((name) => !Object.hasOwn(GLOBAL_TABLES, name))

const naming = (verbs: string, table: string) =>
  new RegExp(`\\b(?:${verbs})\\s+(?:ONLY\\s+)?"?${table}"?(?![\\w"])`, "i")

/**
 * Whether a statement that names tenant tables keeps to one organisation: one that reads, changes
 * or deletes rows compares `organisation_id` with something; one that only inserts (VALUES, or an
 * organisation given as a parameter) names the column it fills.
 */
const keepsToOrganisation = (text: string, tables: ReadonlyArray<string>) => {
  const reads = tables.some((table) => naming("FROM|JOIN|UPDATE|USING", table).test(text))
  const writes = tables.some((table) => naming("INTO", table).test(text))
  if (!reads && !writes) return true
  if (!reads) return text.includes(TENANT)
  return new RegExp(`${TENANT}"?\\s*(?:=|>=|<=|IN\\s*\\()|=\\s*[\\w."]*${TENANT}\\b`, "i").test(text)
}

describe("the statements the store sends", () => {
  const sent = new Set<string>()
  // Patched for this file only: workers run file after file in one process (vitest.config.ts).
  const original = PGlite.prototype.execProtocolRawStream
  beforeAll(() => {
    PGlite.prototype.execProtocolRawStream = function (this: PGlite, message, options) {
      for (const text of texts(message)) sent.add(text)
      return original.call(this, message, options)
    }
  })
  afterAll(() => {
    PGlite.prototype.execProtocolRawStream = original
  })

  describe("while the storage contract runs on PGlite", () => runStorageContract("pglite", sharedStore(pgliteStore)))

  it(`name a tenant table only with its ${TENANT}, but for the sweeps named`, async () => {
    const tables = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const context = yield* Layer.build(pgliteStore())
          const { tables } = yield* Effect.provideService(
            catalogue,
            SqlClient.SqlClient,
            Context.get(context, SqlClient.SqlClient)
          )
          return tenantTables(tables.map((table) => table.name))
        })
      )
    )
    const allowed = Object.keys(CROSS_TENANT_STATEMENTS)
    const statements = [...sent].map((text) => text.replace(/\s+/g, " ").trim())
    const unfiltered = statements.filter(
      (text) => !keepsToOrganisation(text, tables) && !allowed.some((piece) => text.includes(piece))
    )
    expect(statements.length).toBeGreaterThan(100)
    expect(unfiltered).toEqual([])
    // An allowance no statement needs any more is a stale one.
    expect(allowed.filter((piece) => !statements.some((text) => text.includes(piece)))).toEqual([])
  })
})
