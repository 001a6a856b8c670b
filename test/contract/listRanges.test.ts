/**
 * The lists whose filter no index reads in their order (packages/storage-pg/src/internal/
 * liveRecords.ts, `FEW`): a stock band, whose rows are ranges of the stock indexes, and any filter
 * of a sync walk (`order=updated_at`), whose indexes are in the default order. Each reads the
 * filter's rows by its indexes up to `FEW`, then either sorts those or walks the list in its order;
 * either way its pages must be the plain filter's. Here on organisations holding more than `FEW`
 * matching rows and fewer, through the ports on PGlite and the server, against the answer worked
 * out from the rows themselves (`StockLedger.band` for the bands). Contacts are also listed with
 * `include_archived`, with more archived rows than `FEW` and fewer.
 */
import { Contacts, Inventory, type Organisation, Wire } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import type { Ports } from "../../packages/storage-pg/src/index.js"
import { FEW } from "../../packages/storage-pg/src/internal/liveRecords.js"
import { serverUrl } from "../support/pgDatabase.js"
import { pgliteStore, serverStore } from "../support/storages.js"

const engines: ReadonlyArray<{
  readonly name: string
  readonly skip: boolean
  readonly store: () => Layer.Layer<Ports | SqlClient.SqlClient, unknown>
}> = [
  { name: "pglite", skip: false, store: pgliteStore },
  { name: "postgres", skip: serverUrl === undefined, store: () => serverStore() }
]

const THRESHOLD = 5
const SIZE = FEW * 2 + 300

/**
 * Row n of an organisation (1 newest): created n ms before the start, changed in another order.
 * Stock: in `many`, ok but for every 100th (low, half at the default threshold and half at their
 * own of 20) and every 7th (untracked); in `few`, low but for 40 ok. Contacts: lead but every 50th a
 * customer.
 */
const seed = (sql: SqlClient.SqlClient, organisationId: string, many: boolean) =>
  Effect.gen(function* () {
    yield* sql`INSERT INTO organisations (id, name, settings, created_at)
      VALUES (${organisationId}::uuid, 'lists', '{}'::jsonb, now())`
    const created = sql.literal("timestamptz '2026-01-01' - n * interval '1 millisecond'")
    const changed = sql.literal("timestamptz '2026-01-01' + ((n * 7919) % 10007) * interval '1 second'")
    const [lowOwn, stock] = many
      ? [
          sql.literal("n % 200 = 100"),
          sql.literal(
            "CASE WHEN n % 7 = 0 THEN NULL WHEN n % 200 = 0 THEN 1 + n % 5 WHEN n % 200 = 100 THEN 10 ELSE 100 END"
          )
        ]
      : [sql.literal("false"), sql.literal(`CASE WHEN n % ${Math.floor(SIZE / 40)} = 0 THEN 100 ELSE 1 + n % 5 END`)]
    yield* sql`INSERT INTO products (id, organisation_id, sku, name, unit, unit_price, currency, vat_rate, active,
        kind, category, low_stock_threshold, stock, options, variants, created_at, updated_at)
      SELECT gen_random_uuid(), ${organisationId}::uuid, 'SKU-' || n, 'Product ' || n, 'pc', 1, 'EUR', 21, true,
        'physical', NULL, CASE WHEN ${lowOwn} THEN 20 END, ${stock}, '[]'::jsonb, '[]'::jsonb, ${created}, ${changed}
      FROM generate_series(1, ${SIZE}::integer) AS n`
    yield* sql`INSERT INTO stock_levels (item_id, organisation_id, product_id, level)
      SELECT id, organisation_id, id, stock FROM products WHERE organisation_id = ${organisationId}::uuid`
    yield* sql`INSERT INTO contacts (id, organisation_id, first_name, last_name, email, status, custom,
        created_at, updated_at)
      SELECT gen_random_uuid(), ${organisationId}::uuid, 'C', 'C' || lpad(n::text, 4, '0'), NULL,
        CASE WHEN n % 50 = 0 THEN 'customer' ELSE 'lead' END, '{}'::jsonb, ${created}, ${changed}
      FROM generate_series(1, ${SIZE}::integer) AS n`
    // Archived: every second contact in \`many\` (more than FEW), every ninth in the other.
    yield* sql`UPDATE contacts SET archived_at = updated_at
      WHERE organisation_id = ${organisationId}::uuid AND (right(last_name, 4))::integer % ${many ? 2 : 9} = 0`
    yield* sql`ANALYZE products`
    yield* sql`ANALYZE contacts`
  })

/** The list's order, as `Wire.Page` names it. */
const sorted = <A extends Wire.Keyed>(rows: ReadonlyArray<A>, order: Wire.Page["order"]): Array<A> =>
  [...rows].sort((a, b) =>
    order === "updated_at"
      ? a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id)
      : b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)
  )

/** Every page of a walk by cursor, then the first pages by offset; both must be the expected rows. */
const walks = <A extends Wire.Keyed>(
  list: (page: Wire.Page) => Effect.Effect<ReadonlyArray<A>, unknown>,
  expected: ReadonlyArray<A>,
  order: Wire.Page["order"]
) =>
  Effect.gen(function* () {
    const ids = expected.map((row) => row.id)
    const limit = 500
    const walked: Array<string> = []
    let cursor: Wire.PageKey | undefined
    for (;;) {
      const rows = yield* list({ limit, offset: 0, order, cursor })
      walked.push(...rows.slice(0, limit).map((row) => row.id))
      if (rows.length <= limit) break
      cursor = Wire.keyOf(rows[limit - 1]!, { order })
    }
    expect(walked).toEqual(ids)
    for (const offset of new Set([0, 50, Math.max(0, ids.length - 10)])) {
      const rows = yield* list({ limit: 50, offset, order })
      expect(rows.map((row) => row.id)).toEqual(ids.slice(offset, offset + 51))
    }
  })

for (const engine of engines) {
  describe.skipIf(engine.skip)(`lists filtered where no index serves their order [${engine.name}]`, () => {
    it(`answers the plain filter's pages with more than ${FEW} matching rows and with fewer`, async () => {
      await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const products = yield* Inventory.ProductRepository
            const contacts = yield* Contacts.ContactRepository
            const counts: Array<string> = []
            for (const many of [true, false]) {
              const organisationId = crypto.randomUUID() as Organisation.OrganisationId
              yield* seed(sql, organisationId, many)
              const allProducts = yield* products.list(organisationId, {}, { limit: SIZE, offset: 0 })
              const allContacts = yield* contacts.list(
                organisationId,
                {},
                { limit: SIZE, offset: 0, include_archived: true }
              )
              expect(allProducts.length).toBe(SIZE)
              for (const order of [undefined, "updated_at"] as const) {
                for (const band of ["untracked", "out", "low", "ok"] as const) {
                  const expected = sorted(
                    allProducts.filter(
                      (p) => Inventory.StockLedger.band(p.stock, p.low_stock_threshold ?? THRESHOLD) === band
                    ),
                    order
                  )
                  counts.push(`${many ? "many" : "few"} ${band} ${expected.length}`)
                  yield* walks(
                    (page) => products.list(organisationId, { stock: { band, defaultThreshold: THRESHOLD } }, page),
                    expected,
                    order
                  )
                }
                for (const status of ["lead", "customer", "inactive"] as const) {
                  for (const archivedToo of [false, true]) {
                    // A search beside the filter: the rows' text is needed, so every match is read again.
                    for (const q of [undefined, "c01"]) {
                      yield* walks(
                        (page) =>
                          contacts.list(organisationId, q === undefined ? { status } : { status, q }, {
                            ...page,
                            include_archived: archivedToo
                          }),
                        sorted(
                          allContacts.filter(
                            (c) =>
                              c.status === status &&
                              (q === undefined || c.last_name!.toLowerCase().includes(q)) &&
                              (archivedToo || (c as { archived_at?: string | null }).archived_at === null)
                          ),
                          order
                        ),
                        order
                      )
                    }
                  }
                }
              }
            }
            // Both sides of FEW are met: bands holding more than FEW rows, a few, and none.
            expect([...new Set(counts)]).toEqual([
              "many untracked 471",
              "many out 0",
              "many low 29",
              "many ok 2800",
              "few untracked 0",
              "few out 0",
              "few low 3260",
              "few ok 40"
            ])
          }).pipe(Effect.provide(engine.store()))
        )
      )
    }, 120_000)
  })
}
