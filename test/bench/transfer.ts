/**
 * Organisation export and import on the PostgreSQL server (docs/benchmarks.md): an organisation of
 * BENCH_CONTACTS contacts (default 100,000, inserted by SQL), exported through `Transfer` to a
 * counting sink, then imported into a second, empty database. Prints times and the peak RSS.
 * `DATABASE_URL=postgres://... node --conditions=@crm/source --import tsx test/bench/transfer.ts`
 */
import { Access, Kernel, Transfer } from "@crm/core"
import * as StoragePg from "@crm/storage-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { freshDatabase } from "../support/pgDatabase.js"

const url = process.env.DATABASE_URL
if (url === undefined) throw new Error("set DATABASE_URL")
const contacts = Number(process.env.BENCH_CONTACTS ?? 100_000)
const store = (database: string) => Layer.provideMerge(Kernel.layer, StoragePg.layerServer({ url: database }))
const rss = () => Math.round(process.resourceUsage().maxRSS / 1024)

const program = Effect.gen(function* () {
  const source = yield* freshDatabase(url)
  const target = yield* freshDatabase(url)
  const lines: Array<string> = []
  let bytes = 0
  const organisationId = yield* Effect.provide(
    Effect.gen(function* () {
      const organisation = yield* (yield* Access.Access).createOrganisation({ name: "Bench" })
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO contacts (id, organisation_id, first_name, last_name, email, status, custom, created_at, updated_at)
        SELECT gen_random_uuid(), ${organisation.id}::uuid, 'First' || n, 'Last' || n, 'p' || n || '@example.test', 'lead',
          jsonb_build_object('score', n), now(), now() FROM generate_series(1, ${contacts}) AS n`
      const transfer = yield* Transfer.Transfer
      const header = yield* transfer.header(organisation.id, {})
      const before = rss()
      const started = performance.now()
      // Kept only for the import below, which the export's figures are taken before.
      yield* transfer.exportTo(header, (page) =>
        Effect.sync(() => {
          for (const line of page) bytes += line.length + 1
          lines.push(...page)
        })
      )
      console.log(
        `export: ${contacts} contacts, ${lines.length} lines, ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(2)} s; peak RSS ${before} -> ${rss()} MiB (lines held for the import)`
      )
      return organisation.id
    }),
    store(source.url)
  )
  yield* Effect.provide(
    Effect.gen(function* () {
      const started = performance.now()
      const encoder = new TextEncoder()
      const summary = yield* (yield* Transfer.Transfer).importFrom(
        Stream.fromIterable(lines).pipe(Stream.map((line) => encoder.encode(`${line}\n`)))
      )
      console.log(
        `import: ${summary.items} items into ${organisationId} in ${((performance.now() - started) / 1000).toFixed(2)} s; peak RSS ${rss()} MiB`
      )
    }),
    store(target.url)
  )
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
