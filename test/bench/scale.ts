/**
 * `npm run bench:scale` (BENCH_SCENARIO=scale): how our server's reads hold up when one
 * organisation holds a million contacts and a million events, and a million deals, products and
 * tasks for the list filters. Seeded by SQL (generate_series) into a fresh database our server
 * migrated; a second organisation of 10,000 of each gives the same routes at the usual size for
 * comparison. Our server only, on PostgreSQL, wrk at BENCH_SCALE_CONNECTIONS (16). Then EXPLAIN
 * (ANALYZE, BUFFERS) of the statements our server sends for those routes (texts as
 * packages/storage-pg/src/internal/liveRecords.ts and EventLog.ts build them), run as prepared
 * statements after five executions, as a pooled connection of our server would run them.
 *
 * Env (besides run.ts's): BENCH_SCALE_CONTACTS (1000000), BENCH_SCALE_EVENTS (= contacts; one
 * contact.created per contact), BENCH_SCALE_DEALS, BENCH_SCALE_PRODUCTS, BENCH_SCALE_TASKS (each
 * = contacts), BENCH_SCALE_SMALL (10000, of each), BENCH_SCALE_CONNECTIONS (16),
 * BENCH_SCALE_Q (12345: a rare substring, in about 20 of the million contacts and none of the small ones),
 * BENCH_SCALE_ROUTES (get,list,search,offset,keyset,events-head,events-back,filters: which of the
 * routes to load; `filters` names every list filter route, each of which can also be named alone).
 * `keyset` is a sync walk's page nine tenths of the way through the organisation's contacts
 * (`order=updated_at&cursor=...`): with the (organisation_id, updated_at, id) index it should cost
 * what the first page does, where `offset` grows with its depth.
 *
 * The filter routes (issue 38) ask each list filter for a value that matches many rows, a few, or
 * none (test/bench/scaleSeed.ts spreads the values; the organisations' customers are made
 * prospects, so `status=customer` matches nothing). Each should cost about what the first page
 * does, whatever it matches: a filter no index serves reads every row when it matches nothing.
 * The small organisation's deals have their `deal.created` events, so the events table holds more
 * than one name as any store does (a generic plan weighs `event = $n` by their number); the big
 * one's have none, so `/events?event=deal.created` matches nothing in its million events.
 * The `low` and `ok` stock bands and the filters of a sync walk (`order=updated_at`) or of a list
 * with archived rows (`include_archived`) are read in two statements (`liveRecords.list`, `FEW`),
 * so no single plan is shown for them. Each route also reports the median of five requests sent
 * one at a time after its load ("single ms"), the figure the issue's targets are set in.
 */
import type { Wire } from "@crm/core"
import type pg from "pg"
import { productLevels, productTable } from "../../packages/storage-pg/src/internal/inventoryRows.js"
import { dealTable, eventTable, taskTable } from "../../packages/storage-pg/src/internal/rows.js"
import { stockBand } from "../../packages/storage-pg/src/ProductRepository.js"
import {
  call,
  createDatabase,
  createKeys,
  createOrganisation,
  envList,
  envNumber,
  expectStatus,
  fixed,
  KEYS,
  PROFILE,
  problems,
  randomTag,
  SECONDS,
  startOurs,
  state,
  stopChild,
  tables,
  tempDir,
  WARMUP,
  withClient
} from "./harness.js"
import { measure, perRequest } from "./load.js"
import { seedDealEvents, seedDeals, seededUuid, seedProducts, seedTasks, withoutCustomers } from "./scaleSeed.js"
import { contactIds, eventRange, seedOrganisation } from "./seed.js"
import { type LuaRoute, runWrk, script } from "./wrk.js"

const BIG = envNumber("BENCH_SCALE_CONTACTS", 1_000_000)
const DEALS = envNumber("BENCH_SCALE_DEALS", BIG)
const PRODUCTS = envNumber("BENCH_SCALE_PRODUCTS", BIG)
const TASKS = envNumber("BENCH_SCALE_TASKS", BIG)
const SMALL = envNumber("BENCH_SCALE_SMALL", 10_000)
const CONNECTIONS = envNumber("BENCH_SCALE_CONNECTIONS", 16)
const Q = process.env.BENCH_SCALE_Q ?? "12345"
const ROUTES = envList("BENCH_SCALE_ROUTES", "get,list,search,offset,keyset,events-head,events-back,filters")

const COLUMNS = "id, first_name, last_name, email, phone, company_id, status, source, custom, created_at, updated_at"

/** The statements as @effect/sql compiles them (sql.and/sql.or parenthesise two or more clauses). */
const STATEMENTS = {
  get: `SELECT ${COLUMNS} FROM "contacts" WHERE organisation_id = $1::uuid AND archived_at IS NULL AND id = $2::uuid`,
  list: `SELECT ${COLUMNS} FROM "contacts" WHERE organisation_id = $1::uuid AND archived_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
  search: `SELECT ${COLUMNS} FROM "contacts" WHERE (organisation_id = $1::uuid AND archived_at IS NULL AND ("first_name" ILIKE $2 ESCAPE '\\' OR "last_name" ILIKE $3 ESCAPE '\\' OR "email" ILIKE $4 ESCAPE '\\' OR "phone" ILIKE $5 ESCAPE '\\'))
        ORDER BY created_at DESC, id DESC LIMIT $6 OFFSET $7`,
  keyset: `SELECT ${COLUMNS} FROM "contacts" WHERE (organisation_id = $1::uuid AND archived_at IS NULL AND (updated_at, id) > ($2::timestamptz, $3::uuid))
        ORDER BY updated_at, id LIMIT $4 OFFSET $5`,
  events: `SELECT id, event, data, created_at FROM events
          WHERE organisation_id >= $1::uuid AND organisation_id <= $2::uuid AND id > $3::bigint
          ORDER BY organisation_id, id LIMIT $4`,
  eventsOfName: `SELECT ${eventTable.selected} FROM events
          WHERE organisation_id >= $1::uuid AND organisation_id <= $1::uuid AND id > $2::bigint AND event = $4
          ORDER BY organisation_id, id LIMIT $3`
}

/**
 * A first page of a list, filtered by one condition (its value `$2` if it has one) or none, as
 * liveRecords.list compiles it.
 */
const listStatement = (table: string, columns: string, condition?: string) => {
  const limit = condition?.includes("$2") ? 3 : 2
  const where =
    condition === undefined
      ? "organisation_id = $1::uuid AND archived_at IS NULL"
      : `(organisation_id = $1::uuid AND archived_at IS NULL AND ${condition})`
  return `SELECT ${columns} FROM "${table}" WHERE ${where}
        ORDER BY created_at DESC, id DESC LIMIT $${limit} OFFSET $${limit + 1}`
}

const LISTS = {
  contacts: { table: "contacts", columns: COLUMNS },
  deals: { table: "deals", columns: dealTable.selected },
  products: { table: "products", columns: `${productTable.selected}, ${productLevels.levels} AS levels` },
  tasks: { table: "tasks", columns: taskTable.selected }
}

interface ScaleRoute {
  readonly id: string
  /** `filters` for the list filter routes, which BENCH_SCALE_ROUTES can name together. */
  readonly group?: string
  readonly label: string
  readonly lua: LuaRoute
  /** The statement whose plan is shown; none for a list read in two (`liveRecords.list`, `FEW`). */
  readonly explain?: { readonly text: string; readonly params: ReadonlyArray<string> }
}

const pattern = `%${Q.replace(/[\\%_]/g, "\\$&")}%`

/** The contact nine tenths of the way through a sync walk (order=updated_at): where the keyset page starts. */
const deepKey = async (client: pg.Client, organisationId: string, size: number): Promise<Wire.PageKey> => {
  const { rows } = await client.query<{ at: string; id: string }>(
    `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, id FROM contacts
     WHERE organisation_id = $1::uuid AND archived_at IS NULL ORDER BY updated_at, id OFFSET $2 LIMIT 1`,
    [organisationId, Math.floor(size * 0.9)]
  )
  return { order: "updated_at", at: rows[0]!.at, id: rows[0]!.id }
}

/**
 * The cursor a client walking the sync order is given after that contact: the page at its offset
 * hands it out. Cursors are signed by the server, so the bench asks for one rather than making it.
 */
const deepCursor = async (base: string, organisationId: string, size: number): Promise<string> => {
  const [key] = await createKeys(base, organisationId, 1)
  const path = `/api/v1/contacts?order=updated_at&limit=1&offset=${Math.floor(size * 0.9)}`
  return expectStatus(await call(base, "GET", path, key), 200, "GET /contacts (the deep cursor)").body.next_cursor
}

/** How the repositories cast a filter's value (none: text). */
const CASTS: { readonly [column: string]: string } = {
  contact_id: "::uuid",
  pipeline_id: "::uuid",
  active: "::boolean"
}

/** The organisations' stock threshold: the settings' default, which the bench leaves alone. */
const DEFAULT_THRESHOLD = 5

/**
 * One list filter per route, for a value that matches the share of the organisation's rows its
 * label gives (test/bench/scaleSeed.ts), on the first page of 50.
 */
const filterRoutes = (organisationId: string, tag: string, firstEvent: bigint): Array<ScaleRoute> => {
  const route = (
    id: string,
    label: string,
    query: string,
    list: keyof typeof LISTS,
    condition?: string | null,
    value?: string
  ): ScaleRoute => ({
    id,
    group: "filters",
    label,
    lua: { kind: "fixed", path: `/api/v1/${list}?${query === "" ? "" : `${query}&`}limit=50` },
    // null: read in two statements, the filter's index ranges first (`liveRecords.list`).
    ...(condition === null
      ? {}
      : {
          explain: {
            text: listStatement(LISTS[list].table, LISTS[list].columns, condition),
            params: [organisationId, ...(value === undefined ? [] : [value]), "51", "0"]
          }
        })
  })
  // `name`: what the label shows for the value (a seeded id by the name scaleSeed.ts gives it).
  const byValue = (id: string, list: keyof typeof LISTS, column: string, value: string, share: string, name = value) =>
    route(
      id,
      `GET /${list}?${column}=${name} (${share})`,
      `${column}=${value}`,
      list,
      `${column} = $2${CASTS[column] ?? ""}`,
      value
    )
  const share = { untracked: "35 %", out: "none", low: "1/1000", ok: "65 %" } as const
  const since = firstEvent - 1n
  // The first page of each list but contacts' (`list`), for what a page costs with no filter.
  const unfiltered = (list: "deals" | "products" | "tasks") => route(`${list}-list`, `GET /${list}?limit=50`, "", list)
  return [
    unfiltered("deals"),
    unfiltered("products"),
    unfiltered("tasks"),
    byValue("status", "contacts", "status", "lead", "1/4"),
    byValue("status-none", "contacts", "status", "customer", "none"),
    byValue("deals-kind", "deals", "status_kind", "won", "1/5"),
    byValue("deals-kind-none", "deals", "status_kind", "lost", "none"),
    byValue("deals-contact", "deals", "contact_id", seededUuid(tag, "contact-1"), "5 deals", "contact-1"),
    byValue("deals-contact-none", "deals", "contact_id", seededUuid(tag, "contact-none"), "none", "contact-none"),
    byValue("deals-pipeline", "deals", "pipeline_id", seededUuid(tag, "pipeline-1"), "3/10", "pipeline-1"),
    byValue("deals-pipeline-none", "deals", "pipeline_id", seededUuid(tag, "pipeline-2"), "none", "pipeline-2"),
    byValue("products-inactive", "products", "active", "false", "1/1000"),
    byValue("products-kind", "products", "kind", "digital", "1/10"),
    byValue("products-kind-none", "products", "kind", "gift_card", "none"),
    byValue("products-category", "products", "category", "category-7", "1/50"),
    byValue("products-category-none", "products", "category", "category-none", "none"),
    ...(["untracked", "out", "low", "ok"] as const).map((band) =>
      route(
        `stock-${band}`,
        `GET /products?stock=${band} (${share[band]})`,
        `stock=${band}`,
        "products",
        band === "low" || band === "ok" ? null : stockBand({ band, defaultThreshold: DEFAULT_THRESHOLD })
      )
    ),
    // A sync walk's first page with a filter, whose indexes are in the default order.
    route(
      "sync-status",
      "GET /contacts?status=lead&order=updated_at (1/4)",
      "status=lead&order=updated_at",
      "contacts",
      null
    ),
    route(
      "sync-status-none",
      "GET /contacts?status=customer&order=updated_at (none)",
      "status=customer&order=updated_at",
      "contacts",
      null
    ),
    route(
      "sync-tasks-open",
      "GET /tasks?done=false&order=updated_at (1/1000)",
      "done=false&order=updated_at",
      "tasks",
      null
    ),
    // Archived rows too (none are archived here): the filter's live rows and the archived rows by their indexes.
    route(
      "archived-status-none",
      "GET /contacts?status=customer&include_archived=true (none)",
      "status=customer&include_archived=true",
      "contacts",
      null
    ),
    route(
      "archived-tasks-open",
      "GET /tasks?done=false&include_archived=true (1/1000)",
      "done=false&include_archived=true",
      "tasks",
      null
    ),
    route(
      "sync-stock-low",
      "GET /products?stock=low&order=updated_at (1/1000)",
      "stock=low&order=updated_at",
      "products",
      null
    ),
    route("tasks-open", "GET /tasks?done=false (1/1000)", "done=false", "tasks", "NOT done"),
    byValue("tasks-priority", "tasks", "priority", "high", "1/10"),
    byValue("tasks-priority-none", "tasks", "priority", "urgent", "none"),
    {
      id: "events-event",
      group: "filters",
      label: "GET /events?event=deal.created from the first",
      lua: { kind: "fixed", path: `/api/v1/events?since=${since}&event=deal.created&limit=100` },
      explain: { text: STATEMENTS.eventsOfName, params: [organisationId, since.toString(), "101", "deal.created"] }
    }
  ]
}

/** Whether BENCH_SCALE_ROUTES names the route, by its id or its group. */
const chosen = (route: ScaleRoute) =>
  ROUTES.includes(route.id) || (route.group !== undefined && ROUTES.includes(route.group))

const routesFor = (
  organisationId: string,
  tag: string,
  ids: ReadonlyArray<string>,
  events: { min: bigint; max: bigint; count: number },
  deep: Wire.PageKey,
  cursor: string
): Array<ScaleRoute> => {
  const head = events.max - 10n
  const back = events.min - 1n
  const routes: Array<ScaleRoute> = [
    {
      id: "get",
      label: "GET /contacts/{id}",
      lua: { kind: "get", pathPrefix: "/api/v1/contacts/", ids },
      explain: { text: STATEMENTS.get, params: [organisationId, ids[0]!] }
    },
    {
      id: "list",
      label: "GET /contacts?limit=50",
      lua: { kind: "fixed", path: "/api/v1/contacts?limit=50" },
      explain: { text: STATEMENTS.list, params: [organisationId, "51", "0"] }
    },
    {
      id: "search",
      label: `GET /contacts?q=${Q}&limit=50`,
      lua: { kind: "fixed", path: `/api/v1/contacts?q=${encodeURIComponent(Q)}&limit=50` },
      explain: { text: STATEMENTS.search, params: [organisationId, pattern, pattern, pattern, pattern, "51", "0"] }
    },
    {
      id: "offset",
      label: "GET /contacts?offset=10000&limit=50",
      lua: { kind: "fixed", path: "/api/v1/contacts?offset=10000&limit=50" },
      explain: { text: STATEMENTS.list, params: [organisationId, "51", "10000"] }
    },
    {
      id: "keyset",
      label: "GET /contacts?order=updated_at&cursor=(9/10 deep)&limit=50",
      lua: {
        kind: "fixed",
        path: `/api/v1/contacts?order=updated_at&cursor=${cursor}&limit=50`
      },
      explain: { text: STATEMENTS.keyset, params: [organisationId, deep.at, deep.id, "51", "0"] }
    },
    {
      id: "events-head",
      label: "GET /events near the head (10 newer)",
      lua: { kind: "fixed", path: `/api/v1/events?since=${head}&limit=100` },
      explain: { text: STATEMENTS.events, params: [organisationId, organisationId, head.toString(), "101"] }
    },
    {
      id: "events-back",
      label: `GET /events from ${events.count.toLocaleString("en")} back`,
      lua: { kind: "fixed", path: `/api/v1/events?since=${back}&limit=100` },
      explain: { text: STATEMENTS.events, params: [organisationId, organisationId, back.toString(), "101"] }
    },
    ...filterRoutes(organisationId, tag, events.min)
  ]
  return routes.filter(chosen)
}

/** The plan of the 6th execution of a prepared statement (the plan cache has decided generic or custom by then). */
const explain = async (client: pg.Client, text: string, params: ReadonlyArray<string>): Promise<string> => {
  const name = `bench_${randomTag()}`
  await client.query(`PREPARE ${name} AS ${text}`)
  try {
    const args = params.map((p) => client.escapeLiteral(p)).join(", ")
    for (let i = 0; i < 5; i++) await client.query(`EXECUTE ${name}(${args})`)
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${name}(${args})`)
    return rows.map((row) => row["QUERY PLAN"]).join("\n")
  } finally {
    await client.query(`DEALLOCATE ${name}`)
  }
}

interface ScaleRow {
  readonly size: string
  readonly route: string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** The median of five requests sent one at a time, after the load: what one client waits. */
  readonly single: number
  readonly failures: number
  readonly serverCpu: number
  readonly pgCpu: number
  /** Shared-buffer pages found in PostgreSQL's cache and read from the OS (page cache or disk), per request. */
  readonly hits: number
  readonly reads: number
}

/**
 * The bench database's block counters per table (heap, indexes and TOAST together). Busy backends
 * flush them about once a second, so a window's difference is off by about a second's worth at
 * each end, alike at both.
 */
const blocks = async (client: pg.Client): Promise<Map<string, { hit: number; read: number }>> => {
  const { rows } = await client.query<{ relation: string; hit: string; read: string }>(
    `SELECT relname AS relation,
       (coalesce(heap_blks_hit, 0) + coalesce(idx_blks_hit, 0) + coalesce(toast_blks_hit, 0) + coalesce(tidx_blks_hit, 0))::text AS hit,
       (coalesce(heap_blks_read, 0) + coalesce(idx_blks_read, 0) + coalesce(toast_blks_read, 0) + coalesce(tidx_blks_read, 0))::text AS read
     FROM pg_statio_user_tables`
  )
  return new Map(rows.map((row) => [row.relation, { hit: Number(row.hit), read: Number(row.read) }]))
}

/** Blocks per request over a window, in all and for the tables that took the most. */
const blocksPerRequest = (
  before: Map<string, { hit: number; read: number }>,
  after: Map<string, { hit: number; read: number }>,
  requests: number
) => {
  const tables = [...after].map(([relation, { hit, read }]) => ({
    relation,
    hit: perRequest(hit - (before.get(relation)?.hit ?? 0), requests),
    read: perRequest(read - (before.get(relation)?.read ?? 0), requests)
  }))
  return {
    hit: tables.reduce((sum, t) => sum + t.hit, 0),
    read: tables.reduce((sum, t) => sum + t.read, 0),
    top: tables
      .filter((t) => t.hit + t.read >= 0.5)
      .sort((a, b) => b.hit + b.read - (a.hit + a.read))
      .slice(0, 4)
      .map((t) => `${t.relation} ${fixed(t.hit + t.read, 1)}`)
      .join(", ")
  }
}

/**
 * The median of five requests of the route sent one after another (the issue's "single requests"),
 * timed by the client, on a connection kept alive as wrk's are.
 */
const alone = async (base: string, lua: LuaRoute, key: string): Promise<number> => {
  const path = lua.kind === "fixed" ? lua.path : lua.kind === "get" ? `${lua.pathPrefix}${lua.ids[0]}` : undefined
  if (path === undefined) return Number.NaN
  const times: Array<number> = []
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    await call(base, "GET", path, key)
    times.push(performance.now() - started)
  }
  return times.sort((a, b) => a - b)[2]!
}

export const runScale = async (): Promise<void> => {
  console.log(
    `\n== Scale: one organisation with ${BIG.toLocaleString("en")} contacts and events, our server on PostgreSQL ==`
  )
  const db = await createDatabase()
  console.log(`  database ${db.name}`)
  const first = await startOurs("PostgreSQL, empty database", { DATABASE_URL: db.url }, false)
  const big = await createOrganisation(first.base, "Scale (big)")
  const small = await createOrganisation(first.base, "Scale (small)")
  await stopChild(first.child)

  const tags = { big: randomTag(), small: randomTag() }
  const organisations = await withClient(db.url, async (client) => {
    const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`
    let t = Date.now()
    await seedOrganisation(client, big, BIG, randomTag())
    console.log(`  seeded ${BIG.toLocaleString("en")} contacts and events in ${seconds(t)}`)
    t = Date.now()
    await seedOrganisation(client, small, SMALL, randomTag())
    console.log(`  seeded ${SMALL.toLocaleString("en")} more in ${seconds(t)}`)
    t = Date.now()
    for (const [id, counts, tag] of [
      [big, { deals: DEALS, products: PRODUCTS, tasks: TASKS }, tags.big],
      [small, { deals: SMALL, products: SMALL, tasks: SMALL }, tags.small]
    ] as const) {
      await seedDeals(client, id, counts.deals, tag)
      await seedProducts(client, id, counts.products, tag)
      await seedTasks(client, id, counts.tasks, tag)
      await withoutCustomers(client, id)
    }
    await seedDealEvents(client, small)
    console.log(
      `  seeded ${DEALS.toLocaleString("en")} deals, ${PRODUCTS.toLocaleString("en")} products and ` +
        `${TASKS.toLocaleString("en")} tasks (and ${SMALL.toLocaleString("en")} of each) in ${seconds(t)}`
    )
    t = Date.now()
    await client.query("VACUUM ANALYZE")
    console.log(`  VACUUM ANALYZE in ${seconds(t)}`)
    const sizes = await client.query<{ relation: string; size: string }>(
      `SELECT relname AS relation, pg_size_pretty(pg_total_relation_size(oid)) AS size FROM pg_class
       WHERE relname IN ('contacts', 'events', 'deals', 'products', 'tasks') ORDER BY relname`
    )
    console.log(`  table sizes with indexes: ${sizes.rows.map((r) => `${r.relation} ${r.size}`).join(", ")}`)
    return [
      {
        size: `${SMALL.toLocaleString("en")}`,
        count: SMALL,
        id: small,
        tag: tags.small,
        ids: await contactIds(client, small, 10_000),
        events: await eventRange(client, small),
        deep: await deepKey(client, small, SMALL)
      },
      {
        size: `${BIG.toLocaleString("en")}`,
        count: BIG,
        id: big,
        tag: tags.big,
        ids: await contactIds(client, big, 10_000),
        events: await eventRange(client, big),
        deep: await deepKey(client, big, BIG)
      }
    ]
  })

  const ours = await startOurs(`PostgreSQL, ${BIG.toLocaleString("en")} contacts`, { DATABASE_URL: db.url })
  const cursors = new Map<string, string>()
  for (const org of organisations) cursors.set(org.id, await deepCursor(ours.base, org.id, org.count))
  const dir = tempDir("crm-bench-wrk-")
  const rows: Array<ScaleRow> = []
  await withClient(db.url, async (client) => {
    for (const org of organisations) {
      for (const route of routesFor(org.id, org.tag, org.ids, org.events, org.deep, cursors.get(org.id)!)) {
        if (state.interrupted) return
        const keys = await createKeys(ours.base, org.id, KEYS)
        const lua = script(route.lua, keys, randomTag())
        const label = `scale-${org.size.replace(/\D/g, "")}-${route.id}`
        await runWrk({
          base: ours.base,
          dir,
          name: `${label}-warm`,
          script: lua,
          seconds: WARMUP,
          connections: CONNECTIONS
        })
        const before = await blocks(client)
        const window = await measure({
          dir,
          label,
          targets: [{ name: "ours", served: ours, applicationName: "crm", script: lua, connections: CONNECTIONS }],
          seconds: SECONDS,
          pg: { client, database: db.name }
        })
        const after = await blocks(client)
        const single = await alone(ours.base, route.lua, keys[0]!)
        const f = window.targets[0]!
        const r = f.result
        const b = blocksPerRequest(before, after, r.requests)
        const row: ScaleRow = {
          size: org.size,
          route: route.label,
          rps: r.rps,
          p50: r.requests > 0 ? r.p50Ms : Number.NaN,
          p99: r.requests > 0 ? r.p99Ms : Number.NaN,
          single,
          failures: r.non2xx + r.errors + r.timeouts,
          serverCpu: perRequest(f.serverCpuMs, r.requests),
          pgCpu: perRequest(f.pgAppCpuMs, r.requests),
          hits: b.hit,
          reads: b.read
        }
        rows.push(row)
        console.log(
          `  ${org.size.padStart(9)} ${route.label.padEnd(38)} ${fixed(row.rps, 0).padStart(6)} req/s  p50 ${fixed(row.p50, 2)} ms  p99 ${fixed(row.p99, 2)} ms  single ${fixed(row.single, 2)} ms  ` +
            `CPU/req server ${fixed(row.serverCpu, 3)} pg ${fixed(row.pgCpu, 3)} ms  ` +
            `blocks/req hit ${fixed(row.hits, 1)} read ${fixed(row.reads, 2)} (${b.top})` +
            (row.failures > 0 ? `  FAILED ${r.non2xx} non-2xx, ${r.errors} socket errors, ${r.timeouts} timeouts` : "")
        )
        if (row.failures > 0) problems.push(`scale/${org.size}/${route.label}: ${row.failures} failed requests`)
        if (r.requests === 0) {
          problems.push(
            `scale/${org.size}/${route.label}: no request completed within ${SECONDS} s at ${CONNECTIONS} connections`
          )
        }
      }
    }

    const t = tables(
      [
        "contacts",
        "route",
        "req/s",
        "p50 ms",
        "p99 ms",
        "single ms",
        "failed",
        "server CPU ms/req",
        "PG CPU ms/req",
        "blocks hit/req",
        "blocks read/req"
      ],
      rows.map((r) => [
        r.size,
        r.route,
        fixed(r.rps, 0),
        fixed(r.p50, 2),
        fixed(r.p99, 2),
        fixed(r.single, 2),
        String(r.failures),
        fixed(r.serverCpu, 3),
        fixed(r.pgCpu, 3),
        fixed(r.hits, 1),
        fixed(r.reads, 2)
      ]),
      2
    )
    const title = `Scale: our server, wrk ${CONNECTIONS} connections, ${SECONDS} s per route after ${WARMUP} s warm-up${PROFILE ? ", under --cpu-prof" : ""}`
    console.log(`\n${title}\n${t.text}\n\nMarkdown:\n\n**${title}**\n\n${t.markdown}`)

    for (const org of organisations) {
      console.log(
        `\n== EXPLAIN (ANALYZE, BUFFERS), organisation with ${org.size} contacts (6th execution of the prepared statement) ==`
      )
      for (const route of routesFor(org.id, org.tag, org.ids, org.events, org.deep, cursors.get(org.id)!)) {
        if (route.explain === undefined) continue
        const plan = await explain(client, route.explain.text, route.explain.params)
        console.log(`\n-- ${route.label}\n${plan}`)
      }
    }
  })
  await stopChild(ours.child)
}
