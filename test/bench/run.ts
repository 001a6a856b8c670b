/**
 * `npm run bench`: our server (as shipped: `npm start`'s `node <options> examples/server/bin/crm.js
 * serve`) against the honest competitor, a bare node:http + pg server doing only what a correct
 * server must (test/bench/baseline.ts), driven by wrk. Method and reading: docs/benchmarks.md.
 *
 * On PostgreSQL (a fresh `crm_bench_<random>` database, dropped at the end), per round and route:
 *   (a) "together": both servers loaded at once, both on the server core, one wrk at each: the
 *       headline ratio, since whatever else the host does hits both alike;
 *   (b) "alone": each server by itself on the server core (the order alternates between rounds).
 * On PGlite (BENCH_ENGINES includes pglite): our server alone, same routes.
 * Plus cold starts (spawn to first 200) and idle RSS. `BENCH_SCENARIO=scale` (`npm run bench:scale`)
 * runs test/bench/scale.ts instead: one organisation with a million contacts and events.
 *
 * Env:
 *   BENCH_SECONDS (10)          measured seconds per run
 *   BENCH_WARMUP_SECONDS (2)    unmeasured warm-up before each measured run (same servers, same keys)
 *   BENCH_PRIME_SECONDS (3)     once per started server, every route unmeasured (JIT warm-up); 0 skips
 *   BENCH_CONNECTIONS (64)      wrk connections per server
 *   BENCH_WRK_THREADS (1)       wrk threads per wrk process
 *   BENCH_ROUNDS (3)            the report takes the median round
 *   BENCH_KEYS (128)            API keys per run and server, rotated per request (`npm run bench:keys`:
 *                               4,000, as a hosted server with many customers sees them)
 *   BENCH_KEYS_FRESH (1)        0: one set of keys per server, made before priming and used by every
 *                               run (`npm run bench:keys`), instead of fresh keys per run
 *   BENCH_SEED (10000)          contacts (and their events) seeded per organisation
 *   BENCH_ENGINES (postgres,pglite)
 *   BENCH_MODES (together,alone)
 *   BENCH_ROUTES (get,list,events,create,create-idem)
 *   BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres)  for CREATE/DROP DATABASE
 *   BENCH_WRK (/usr/bin/wrk)
 *   BENCH_PROFILE=1             both servers under `node --cpu-prof`; summaries of the measured windows
 *   BENCH_PROFILE_TOP (25), BENCH_PROFILE_OUT (a directory to keep the .cpuprofile files in)
 *   BENCH_SCENARIO (standard)   `scale`: see test/bench/scale.ts
 *   BENCH_AGAINST               A/B: a copy of examples/server (its bin/ and a built dist/) inside the
 *                               repository, run in the bare server's place (labelled "bare"): two
 *                               builds of ours measured side by side (docs/benchmarks.md, "A/B runs")
 *   BENCH_OURS                  a copy of examples/server, as for BENCH_AGAINST, run in our server's
 *                               place (so neither side of an A/B run is rebuilt under it)
 *   BENCH_AB_ORDERS (both)      A/B: `both` measures every route twice, the second time with the two
 *                               builds' slots swapped, and reports the ratio with the first slot's
 *                               bias removed; `one` keeps the first order only
 *   BENCH_OURS_NODE_ARGS        node options for our server only, space-separated (V8 heap sizing...)
 *   BENCH_WORKERS               our server as `crm serve --workers N` on every core instead of pinned to
 *                               the server core (PostgreSQL only; compare with BENCH_WORKERS=1, run alike)
 *   BENCH_LOG_DIR               a directory that keeps each server's whole output (our request log,
 *                               and what BENCH_OURS_NODE_ARGS such as --trace-gc print)
 *   BENCH_OURS_CORES            the cores our server runs on instead of the server core (taskset's
 *                               list, e.g. `0-1`: PGlite as on a laptop, sharing wrk's core too)
 */

import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import type pg from "pg"
import {
  ALL_CORES,
  CONNECTIONS,
  CPU_COUNT,
  call,
  cleanup,
  createDatabase,
  createKeys,
  createOrganisation,
  envList,
  envNumber,
  findings,
  fixed,
  KEYS,
  LOAD_CORE,
  median,
  notes,
  OURS_BIN,
  PIN,
  PROFILE,
  PROFILE_TOP,
  problems,
  ROOT,
  ROUNDS,
  randomTag,
  runBench,
  SECONDS,
  SERVER_CORE,
  type Served,
  shapeOf,
  startBaseline,
  startOurs,
  state,
  stopChild,
  tables,
  tail,
  tempDir,
  WARMUP,
  WORKERS,
  WRK_THREADS,
  withClient
} from "./harness.js"
import { measure, perRequest, type Target } from "./load.js"
import { type CpuProfile, format as formatProfile, summarise, type Window } from "./profile.js"
import { contactIds, eventRange, type Queryable, seedOrganisation } from "./seed.js"
import { type LuaRoute, running, runWrk, script, WRK, wrkMissing } from "./wrk.js"

const SEED = envNumber("BENCH_SEED", 10_000)
const ENGINES = envList("BENCH_ENGINES", "postgres,pglite")
const MODES = envList("BENCH_MODES", "together,alone")
const ROUTE_NAMES = envList("BENCH_ROUTES", "get,list,events,create,create-idem")
const SCENARIO = process.env.BENCH_SCENARIO ?? "standard"
const AGAINST = process.env.BENCH_AGAINST
/**
 * Fresh keys for every run (the default), or (`BENCH_KEYS_FRESH=0`, `npm run bench:keys`) one set
 * per server made before priming and used by every run after it, as a hosted server's customers use
 * theirs: each key comes round every few seconds for the whole bench, so a run measures the keys'
 * steady state, their first use falling in the priming.
 */
const FRESH_KEYS = process.env.BENCH_KEYS_FRESH !== "0"
/** Unmeasured load of every route on each freshly started server, so V8 has optimised the hot paths before round 1. */
const PRIME = process.env.BENCH_PRIME_SECONDS === "0" ? 0 : envNumber("BENCH_PRIME_SECONDS", 3)
/**
 * The orders an A/B run measures in: the two slots are not equal (the first is started first,
 * serves the first organisation seeded and takes the admin calls; with one build in both it read
 * 3-7 % more CPU per request), so the second pass swaps the builds and the report divides the bias out.
 */
const PASSES: ReadonlyArray<Pass> = AGAINST !== undefined && process.env.BENCH_AB_ORDERS !== "one" ? [1, 2] : [1]

// Output piped into `head` must not kill the run before its clean-up (the database would stay behind).
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined)

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    state.interrupted = true
    console.error(`\n${signal}: stopping wrk and the servers, removing temp files, dropping the bench database...`)
    for (const proc of running) proc.kill("SIGTERM")
    void cleanup().finally(() => process.exit(130))
  })
}

// ---------------------------------------------------------------------------------------------
// Routes

/** One organisation as a server under load sees it. */
export interface Organisation {
  readonly id: string
  /** Live contact ids, rotated by `GET /contacts/{id}`. */
  readonly ids: ReadonlyArray<string>
  readonly events: { readonly min: bigint; readonly max: bigint; readonly count: number }
}

interface RouteSpec {
  readonly id: string
  readonly label: string
  readonly lua: (organisation: Organisation) => LuaRoute
}

const ROUTES: ReadonlyArray<RouteSpec> = [
  {
    id: "get",
    label: "GET /contacts/{id}",
    lua: (o) => ({ kind: "get", pathPrefix: "/api/v1/contacts/", ids: o.ids })
  },
  { id: "list", label: "GET /contacts?limit=50", lua: () => ({ kind: "fixed", path: "/api/v1/contacts?limit=50" }) },
  {
    id: "events",
    label: "GET /events?since=N&limit=100",
    // Cursors inside the seeded history, so every page is a full 100 with has_more.
    lua: (o) => ({ kind: "since", from: o.events.min - 1n, span: o.events.count - 100, suffix: "&limit=100" })
  },
  { id: "create", label: "POST /contacts", lua: () => ({ kind: "create", idempotent: false }) },
  {
    id: "create-idem",
    label: "POST /contacts + Idempotency-Key",
    lua: () => ({ kind: "create", idempotent: true })
  }
]

// ---------------------------------------------------------------------------------------------
// Rows

type Server = "ours" | "bare"
type Mode = "together" | "alone"

/** 1: our build in the first slot; 2 (A/B runs only): the other build there. */
type Pass = 1 | 2

interface Row {
  readonly pass: Pass
  readonly round: number
  readonly engine: string
  readonly mode: Mode
  readonly server: Server
  readonly route: string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly requests: number
  readonly failures: number
  readonly detail: string
  readonly serverCpuMsPerReq: number
  /** This server's PostgreSQL backends (by application_name). */
  readonly pgCpuMsPerReq: number
  /** Every postgres process (alone only: together, the two servers share it). */
  readonly pgAllCpuMsPerReq: number
  readonly rssMb: number
  readonly hwmMb: number
}

const rows: Array<Row> = []

interface ColdStart {
  readonly what: string
  readonly ms: number
  readonly idleRssMb: number
}

const coldStarts: Array<ColdStart> = []

const recordStart = (what: string, served: Served) =>
  coldStarts.push({ what, ms: served.coldStartMs, idleRssMb: served.idleRssMb })

// ---------------------------------------------------------------------------------------------
// One run: fresh keys, warm-up, measured window

interface Contender {
  readonly server: Server
  readonly served: Served
  readonly organisation: Organisation
  /** Our server's admin API, which makes every key (also the baseline's). */
  readonly admin: string
  readonly applicationName: string | undefined
  readonly windows: Array<Window>
  /** The keys every run uses, when they are not fresh per run. */
  keys?: Promise<Array<string>>
}

/** The keys of one run at `c`: fresh ones, or the server's one set (`BENCH_KEYS_FRESH=0`). */
const keysFor = (c: Contender): Promise<Array<string>> => {
  if (FRESH_KEYS) return createKeys(c.admin, c.organisation.id, KEYS)
  c.keys ??= createKeys(c.admin, c.organisation.id, KEYS)
  return c.keys
}

const run = async (options: {
  readonly pass: Pass
  readonly round: number
  readonly engine: string
  readonly mode: Mode
  readonly route: RouteSpec
  readonly contenders: ReadonlyArray<Contender>
  readonly dir: string
  readonly pg: { readonly client: pg.Client; readonly database: string } | undefined
}): Promise<void> => {
  const { pass, round, engine, mode, route, contenders } = options
  // Fresh keys per run unless BENCH_KEYS_FRESH=0: every run starts with empty rate-limit windows
  // (see docs/benchmarks.md, "Keys").
  // The warm-up gets its own tag, so the measured POSTs never repeat its emails or Idempotency-Keys.
  const targets: Array<Target> = []
  const warmScripts: Array<string> = []
  for (const c of contenders) {
    const keys = await keysFor(c)
    warmScripts.push(script(route.lua(c.organisation), keys, randomTag()))
    targets.push({
      name: c.server,
      served: c.served,
      applicationName: c.applicationName,
      script: script(route.lua(c.organisation), keys, randomTag())
    })
  }
  const label = `${engine}-${mode}-${route.id}-${pass}-${round}`
  const warm = await Promise.all(
    targets.map((t, i) =>
      runWrk({
        base: t.served.base,
        dir: options.dir,
        name: `${label}-${t.name}-warm`,
        script: warmScripts[i]!,
        seconds: WARMUP
      })
    )
  )
  warm.forEach((w, i) => {
    if (w.non2xx + w.errors + w.timeouts > 0) {
      problems.push(
        `${engine}/${mode}/${targets[i]!.name}/${route.label} warm-up: non-2xx ${w.non2xx}, socket errors ${w.errors}, timeouts ${w.timeouts}`
      )
    }
  })
  if (state.interrupted) throw new Error("interrupted")
  const window = await measure({ dir: options.dir, label, targets, seconds: SECONDS, pg: options.pg })
  if (state.interrupted) throw new Error("interrupted")
  const parts: Array<string> = []
  window.targets.forEach((f, i) => {
    const c = contenders[i]!
    c.windows.push(f.window)
    const r = f.result
    const row: Row = {
      pass,
      round,
      engine,
      mode,
      server: c.server,
      route: route.label,
      rps: r.rps,
      p50: r.requests > 0 ? r.p50Ms : Number.NaN,
      p99: r.requests > 0 ? r.p99Ms : Number.NaN,
      requests: r.requests,
      failures: r.non2xx + r.errors + r.timeouts,
      detail: `non-2xx ${r.non2xx}, socket errors ${r.errors}, timeouts ${r.timeouts}`,
      serverCpuMsPerReq: perRequest(f.serverCpuMs, r.requests),
      pgCpuMsPerReq: perRequest(f.pgAppCpuMs, r.requests),
      pgAllCpuMsPerReq: mode === "alone" ? perRequest(window.pgAllCpuMs, r.requests) : Number.NaN,
      rssMb: f.rssMb,
      hwmMb: f.hwmMb
    }
    rows.push(row)
    parts.push(
      `${c.server} ${fixed(row.rps, 0)} req/s p50 ${fixed(row.p50, 2)} p99 ${fixed(row.p99, 2)} ms, ` +
        `CPU/req server ${fixed(row.serverCpuMsPerReq, 3)}` +
        (Number.isNaN(row.pgCpuMsPerReq) ? "" : ` pg ${fixed(row.pgCpuMsPerReq, 3)}`) +
        (Number.isNaN(row.pgAllCpuMsPerReq) ? "" : ` (all postgres ${fixed(row.pgAllCpuMsPerReq, 3)})`) +
        ` ms, RSS ${fixed(row.rssMb, 0)}/${fixed(row.hwmMb, 0)} MB` +
        (row.failures > 0 ? `, FAILED ${row.detail}` : "")
    )
    if (r.requests === 0)
      problems.push(`${engine}/${mode}/${c.server}/${route.label}: no request completed in the window`)
    if (row.failures > 0) {
      problems.push(`${engine}/${mode}/${c.server}/${route.label}: ${row.detail} of ${r.requests} requests`)
      console.log(`  !! ${c.served.child.name} output (tail):\n${tail(c.served.child)}`)
    }
  })
  const other = window.otherCpuMs / 1000 / window.seconds
  console.log(
    `  [${mode}] ${route.label.padEnd(33)} ${parts.join(" | ")}; wrk+harness ${fixed(window.loadCpuMs / 10 / window.seconds, 0)}%, other ${fixed(other * 100, 0)}% of a core`
  )
  if (other > 0.15) {
    notes.push(
      `${engine}/${mode}/${route.label} round ${round}: other processes used ${fixed(other * 100, 0)}% of a core during the window`
    )
  }
}

/** Every selected route at every contender at once, for PRIME seconds each; nothing recorded but failures. */
const prime = async (contenders: ReadonlyArray<Contender>, dir: string): Promise<void> => {
  if (PRIME === 0) return
  const started = Date.now()
  const keys = await Promise.all(contenders.map(keysFor))
  for (const route of selectedRoutes()) {
    const results = await Promise.all(
      contenders.map((c, i) =>
        runWrk({
          base: c.served.base,
          dir,
          name: `prime-${route.id}-${c.server}`,
          script: script(route.lua(c.organisation), keys[i]!, randomTag()),
          seconds: PRIME
        })
      )
    )
    results.forEach((r, i) => {
      if (r.non2xx + r.errors + r.timeouts > 0) {
        problems.push(
          `priming ${contenders[i]!.server}/${route.label}: non-2xx ${r.non2xx}, socket errors ${r.errors}, timeouts ${r.timeouts}`
        )
      }
    })
  }
  console.log(
    `  primed: every route at ${contenders.map((c) => c.server).join(" and ")} for ${PRIME} s (${((Date.now() - started) / 1000).toFixed(0)} s)`
  )
}

// ---------------------------------------------------------------------------------------------
// Response shapes: both servers must answer alike (statuses, header names, JSON keys and types)

const checkShapes = async (ours: Contender, bare: Contender): Promise<void> => {
  const transcript = async (c: Contender): Promise<Array<string>> => {
    const [key] = await createKeys(c.admin, c.organisation.id, 1)
    const base = c.served.base
    const tag = randomTag()
    const email = `shape-${tag}@bench.example`
    const idem = `shape-${tag}`
    const replies = [
      await call(base, "GET", `/api/v1/contacts/${c.organisation.ids[0]}`, key),
      await call(base, "GET", "/api/v1/contacts?limit=50", key),
      await call(base, "GET", `/api/v1/events?since=${c.organisation.events.min - 1n}&limit=100`, key),
      await call(base, "POST", "/api/v1/contacts", key, { first_name: "Shape", email }),
      await call(base, "POST", "/api/v1/contacts", key, { last_name: "Shape" }, { "idempotency-key": idem }),
      await call(base, "POST", "/api/v1/contacts", key, { last_name: "Shape" }, { "idempotency-key": idem }),
      await call(base, "POST", "/api/v1/contacts", key, { last_name: "Other" }, { "idempotency-key": idem }),
      await call(base, "POST", "/api/v1/contacts", key, { first_name: "Again", email }),
      await call(base, "POST", "/api/v1/contacts", key, {}),
      await call(base, "POST", "/api/v1/contacts", key, "{not json"),
      await call(base, "GET", "/api/v1/contacts/00000000-0000-4000-8000-000000000000", key),
      await call(base, "GET", "/api/v1/contacts/not-a-uuid", key),
      await call(base, "GET", `/api/v1/contacts/${c.organisation.ids[0]}`, undefined),
      await call(base, "GET", "/api/v1/contacts", "mck_not_a_key"),
      await call(base, "GET", "/api/v1/events?since=abc", key),
      await call(base, "GET", "/api/v1/contacts?limit=0", key)
    ]
    return replies.map((reply) => `${reply.status} ${reply.headerNames.join(",")} ${shapeOf(reply.body)}`)
  }
  const a = await transcript(ours)
  const b = await transcript(bare)
  const differ = a.flatMap((line, i) => (line === b[i] ? [] : [`  ours: ${line}\n  bare: ${b[i]}`]))
  if (differ.length > 0) problems.push(`the two servers answer differently:\n${differ.join("\n")}`)
  else console.log(`  response check: ${a.length} requests, same statuses, header names and JSON shapes from both`)
}

// ---------------------------------------------------------------------------------------------
// Engines

const organisationData = async (db: Queryable, id: string): Promise<Organisation> => ({
  id,
  ids: await contactIds(db, id, SEED),
  events: await eventRange(db, id)
})

const selectedRoutes = () => ROUTES.filter((route) => ROUTE_NAMES.includes(route.id))

const profiles: Array<string> = []

const runPostgres = async () => {
  console.log("\n== PostgreSQL ==")
  const db = await createDatabase()
  console.log(`  database ${db.name}`)
  const first = await startOurs("PostgreSQL, empty database", { DATABASE_URL: db.url }, false)
  recordStart("ours, PostgreSQL, empty database (migrations run)", first)
  const oursOrg = await createOrganisation(first.base, "Bench (ours)")
  const bareOrg = await createOrganisation(first.base, "Bench (bare)")
  const started = Date.now()
  const [oursData, bareData] = await withClient(db.url, async (client) => {
    await seedOrganisation(client, oursOrg, SEED, randomTag())
    await seedOrganisation(client, bareOrg, SEED, randomTag())
    await client.query("VACUUM ANALYZE")
    return [await organisationData(client, oursOrg), await organisationData(client, bareOrg)] as const
  })
  console.log(
    `  seeded two organisations with ${SEED} contacts and ${SEED} events each in ${((Date.now() - started) / 1000).toFixed(1)} s`
  )
  await stopChild(first.child)
  for (const pass of PASSES) {
    if (state.interrupted) break
    await runPass(db, pass, oursData, bareData)
  }
}

/**
 * Both servers on the seeded database, every round. The first slot serves the first organisation
 * and makes every key; in pass 2 of an A/B run the other build takes it, and our build the second
 * slot, whose pool is named `crm-baseline` so that PostgreSQL's CPU is still told apart.
 */
const runPass = async (
  db: { readonly url: string; readonly name: string },
  pass: Pass,
  firstData: Organisation,
  secondData: Organisation
) => {
  const against = AGAINST === undefined ? undefined : join(AGAINST, "bin/crm.js")
  const swapped = pass === 2 && against !== undefined
  if (PASSES.length > 1) console.log(`  order ${pass}: ${swapped ? "the other build" : "ours"} in the first slot`)
  const ours = await startOurs(
    swapped ? "PostgreSQL, the other build, first slot" : "PostgreSQL",
    { DATABASE_URL: db.url },
    PROFILE,
    swapped ? against : OURS_BIN
  )
  const order = PASSES.length > 1 ? `, order ${pass}` : ""
  recordStart(`${swapped ? "bare" : "ours"}, PostgreSQL, migrated database${order}`, ours)
  const [probeKey] = await createKeys(ours.base, secondData.id, 1)
  const bare =
    against === undefined
      ? await startBaseline(db.url, { path: `/api/v1/contacts/${secondData.ids[0]}`, key: probeKey! })
      : // Named as the bare server's connections are, so that PostgreSQL's CPU is told apart.
        await startOurs(
          swapped ? "PostgreSQL, ours, second slot" : "PostgreSQL, the other build",
          { DATABASE_URL: `${db.url}?application_name=crm-baseline` },
          PROFILE,
          swapped ? OURS_BIN : against
        )
  recordStart(`${swapped ? "ours" : "bare"}, PostgreSQL${order}`, bare)

  const firstC: Contender = {
    server: swapped ? "bare" : "ours",
    served: ours,
    organisation: firstData,
    admin: ours.base,
    applicationName: "crm",
    windows: []
  }
  const secondC: Contender = {
    server: swapped ? "ours" : "bare",
    served: bare,
    organisation: secondData,
    admin: ours.base,
    applicationName: "crm-baseline",
    windows: []
  }
  if (pass === 1) await checkShapes(firstC, secondC)

  const dir = tempDir("crm-bench-wrk-")
  await prime([firstC, secondC], dir)
  await withClient(db.url, async (client) => {
    const pgInfo = { client, database: db.name }
    for (let round = 1; round <= ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`  round ${round} of ${ROUNDS}`)
      for (const route of selectedRoutes()) {
        const common = { pass, round, engine: "postgres", route, dir, pg: pgInfo }
        if (MODES.includes("together")) await run({ ...common, mode: "together", contenders: [firstC, secondC] })
        if (MODES.includes("alone")) {
          // Alternating order, so neither always runs on the warmer machine.
          for (const c of round % 2 === 1 ? [firstC, secondC] : [secondC, firstC]) {
            await run({ ...common, mode: "alone", contenders: [c] })
          }
        }
      }
    }
  })
  const suffix = PASSES.length > 1 ? `-${pass}` : ""
  const [oursC, bareC] = swapped ? [secondC, firstC] : [firstC, secondC]
  await profileReport(oursC.served, oursC.windows, `our server on PostgreSQL${order}`, `crm-postgres${suffix}`)
  await profileReport(bareC.served, bareC.windows, `bare server on PostgreSQL${order}`, `bare-postgres${suffix}`)
  await stopChild(bare.child)
  await stopChild(ours.child)
}

const runPglite = async () => {
  console.log("\n== PGlite (our server alone) ==")
  const dataDir = join(tempDir("crm-bench-pglite-"), "data")
  const first = await startOurs("PGlite, fresh data dir", { CRM_DATA_DIR: dataDir }, false)
  recordStart("ours, PGlite, fresh data dir (migrations run)", first)
  const orgId = await createOrganisation(first.base, "Bench (PGlite)")
  await stopChild(first.child)
  const started = Date.now()
  const { PGlite } = await import("@electric-sql/pglite")
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm")
  // The extensions the migrations created must be loaded to write to the indexed tables.
  const pglite = await PGlite.create({ dataDir, extensions: { pg_trgm } })
  let organisation: Organisation
  try {
    const db = pglite as unknown as Queryable
    await seedOrganisation(db, orgId, SEED, randomTag())
    await pglite.exec("VACUUM ANALYZE")
    organisation = await organisationData(db, orgId)
  } finally {
    await pglite.close()
  }
  console.log(`  seeded ${SEED} contacts and ${SEED} events in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  const ours = await startOurs("PGlite", { CRM_DATA_DIR: dataDir })
  recordStart("ours, PGlite, reopening the data dir", ours)
  const c: Contender = {
    server: "ours",
    served: ours,
    organisation,
    admin: ours.base,
    applicationName: undefined,
    windows: []
  }
  const dir = tempDir("crm-bench-wrk-")
  await prime([c], dir)
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`  round ${round} of ${ROUNDS}`)
    for (const route of selectedRoutes()) {
      await run({ pass: 1, round, engine: "pglite", mode: "alone", route, contenders: [c], dir, pg: undefined })
    }
  }
  await profileReport(ours, c.windows, "our server on PGlite", "crm-pglite")
  await stopChild(ours.child)
}

/** Stops the server (so --cpu-prof writes its file) and summarises the samples inside `windows`. */
const profileReport = async (
  served: Served,
  windows: ReadonlyArray<Window>,
  label: string,
  fileLabel: string
): Promise<void> => {
  if (served.profileDir === undefined) return
  await stopChild(served.child)
  const files = readdirSync(served.profileDir).filter((file) => file.endsWith(".cpuprofile"))
  if (files.length === 0) {
    problems.push(
      `${label}: no .cpuprofile written (exit ${served.child.proc.exitCode ?? served.child.proc.signalCode})`
    )
    return
  }
  const file = files
    .map((name) => join(served.profileDir!, name))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0]!
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  const keep = process.env.BENCH_PROFILE_OUT
  if (keep !== undefined && keep !== "") {
    mkdirSync(keep, { recursive: true })
    const target = join(keep, `${fileLabel}.cpuprofile`)
    copyFileSync(file, target)
    console.log(`  profile kept as ${target} (open in Chrome DevTools > Performance, or speedscope)`)
  }
  // V8's profile clock and process.hrtime are both CLOCK_MONOTONIC on Linux; fall back to
  // lining up by spawn time if they are not.
  const skew =
    Math.abs(profile.startTime - served.child.spawnedAtUs) < 10e6 ? 0 : profile.startTime - served.child.spawnedAtUs
  const shifted = windows.map((w) => ({ ...w, from: w.from + skew, to: w.to + skew }))
  profiles.push(
    formatProfile(
      summarise(profile, shifted, PROFILE_TOP),
      `${label}, measured windows only${skew === 0 ? "" : " (aligned by spawn time)"}`
    )
  )
}

// ---------------------------------------------------------------------------------------------
// Report

interface Summary extends Row {
  readonly rounds: number
  readonly minRps: number
  readonly maxRps: number
  readonly allFailures: number
}

/** Per engine, mode, server and route: the round with the median req/s, and the spread. */
const summaries = (): Array<Summary> => {
  const groups = new Map<string, Array<Row>>()
  for (const row of rows) {
    const key = [row.engine, row.mode, row.route, row.server].join("\u0000")
    groups.set(key, [...(groups.get(key) ?? []), row])
  }
  return [...groups.values()].map((group) => {
    const sorted = [...group].sort((a, b) => a.rps - b.rps)
    return {
      ...sorted[Math.floor((sorted.length - 1) / 2)]!,
      rounds: group.length,
      minRps: sorted[0]!.rps,
      maxRps: sorted[sorted.length - 1]!.rps,
      allFailures: group.reduce((sum, r) => sum + r.failures, 0)
    }
  })
}

const METRICS = ["rps", "cpu", "pg", "total", "p99"] as const
type Metric = (typeof METRICS)[number]

const perMetric = <A>(f: (metric: Metric) => A): Record<Metric, A> =>
  Object.fromEntries(METRICS.map((metric) => [metric, f(metric)])) as Record<Metric, A>

/** ours/bare per round (the same window in "together"), then the median over rounds, in one order. */
const ratios = (mode: Mode, route: string, pass: Pass) => {
  const pick = (server: Server) =>
    rows.filter(
      (r) => r.engine === "postgres" && r.mode === mode && r.server === server && r.route === route && r.pass === pass
    )
  const bare = pick("bare")
  const per = pick("ours").flatMap((o) => {
    const b = bare.find((r) => r.round === o.round)
    return b === undefined
      ? []
      : [
          {
            rps: o.rps / b.rps,
            cpu: o.serverCpuMsPerReq / b.serverCpuMsPerReq,
            pg: o.pgCpuMsPerReq / b.pgCpuMsPerReq,
            total: (o.serverCpuMsPerReq + o.pgCpuMsPerReq) / (b.serverCpuMsPerReq + b.pgCpuMsPerReq),
            p99: o.p99 / b.p99
          }
        ]
  })
  if (per.length === 0) return undefined
  const of = (f: (x: (typeof per)[number]) => number) => ({
    median: median(per.map(f)),
    min: Math.min(...per.map(f)),
    max: Math.max(...per.map(f))
  })
  return perMetric((metric) => of((x) => x[metric]))
}

type Ratios = NonNullable<ReturnType<typeof ratios>>

/**
 * Both orders of an A/B run: in order 1 our build has the first slot's bias `b`, so it reads
 * `r·b`; in order 2 it reads `r/b`. The geometric mean of the two medians is `r`, the change, and
 * the square root of their quotient is `b`, how much more the first slot costs.
 */
const unbiased = (one: Ratios, two: Ratios) => {
  const both = (f: (r: Ratios) => { readonly median: number }) => ({
    change: Math.sqrt(f(one).median * f(two).median),
    slot: Math.sqrt(f(one).median / f(two).median)
  })
  return perMetric((metric) => both((r) => r[metric]))
}

const MODE_TITLES: Record<string, string> = {
  "postgres/together": `PostgreSQL, both servers loaded at once on core ${SERVER_CORE} (headline)`,
  "postgres/alone": `PostgreSQL, each server alone on core ${SERVER_CORE}`,
  "pglite/alone": `PGlite, our server alone on core ${SERVER_CORE} (the database runs inside it)`
}

const printReport = () => {
  const all = summaries()
  const markdown: Array<string> = []
  const say = (text: string, md: string) => {
    console.log(text)
    markdown.push(md)
  }
  console.log(
    `\n== Results: the median round of ${ROUNDS} by req/s (its p50, p99, CPU and RSS); ${SECONDS} s measured after ${WARMUP} s warm-up, ` +
      `wrk ${CONNECTIONS} connections per server, ${KEYS} keys per run, ${SEED} contacts per organisation` +
      `${PROFILE ? "; BOTH SERVERS UNDER --cpu-prof" : ""} ==`
  )
  for (const [key, title] of Object.entries(MODE_TITLES)) {
    const [engine, mode] = key.split("/")
    const group = all.filter((s) => s.engine === engine && s.mode === mode)
    if (group.length === 0) continue
    const header = [
      "route",
      "server",
      "req/s",
      "min-max",
      "p50 ms",
      "p99 ms",
      "failed",
      "server CPU ms/req",
      "PG CPU ms/req",
      ...(mode === "alone" && engine === "postgres" ? ["all PG CPU ms/req"] : []),
      "RSS MB (peak)"
    ]
    const body = group.map((s) => [
      s.route,
      s.server,
      fixed(s.rps, 0),
      s.rounds > 1 ? `${fixed(s.minRps, 0)}-${fixed(s.maxRps, 0)}` : "",
      fixed(s.p50, 2),
      fixed(s.p99, 2),
      String(s.allFailures),
      fixed(s.serverCpuMsPerReq, 3),
      engine === "pglite" ? "(in server)" : fixed(s.pgCpuMsPerReq, 3),
      ...(mode === "alone" && engine === "postgres" ? [fixed(s.pgAllCpuMsPerReq, 3)] : []),
      `${fixed(s.rssMb, 0)} (${fixed(s.hwmMb, 0)})`
    ])
    const t = tables(header, body, 2)
    say(`\n${title}\n${t.text}`, `\n**${title}**\n\n${t.markdown}`)
  }

  // What sharing the core costs each server: the issue-38 target is within 1.2x for ours.
  const shared = all.flatMap((t) => {
    if (t.engine !== "postgres" || t.mode !== "together") return []
    const alone = all.find(
      (a) => a.engine === "postgres" && a.mode === "alone" && a.server === t.server && a.route === t.route
    )
    return alone === undefined
      ? []
      : [
          [
            t.route,
            t.server,
            `${fixed(alone.serverCpuMsPerReq, 3)} -> ${fixed(t.serverCpuMsPerReq, 3)}`,
            fixed(t.serverCpuMsPerReq / alone.serverCpuMsPerReq, 2),
            `${fixed(alone.pgCpuMsPerReq, 3)} -> ${fixed(t.pgCpuMsPerReq, 3)}`,
            fixed(t.pgCpuMsPerReq / alone.pgCpuMsPerReq, 2)
          ]
        ]
  })
  if (shared.length > 0) {
    const t = tables(
      ["route", "server", "server CPU ms/req alone -> together", "x", "PG CPU ms/req alone -> together", "x"],
      shared,
      2
    )
    const title = "CPU per request, alone -> together (median rounds): what sharing the core costs each server"
    say(`\n${title}\n${t.text}`, `\n**${title}**\n\n${t.markdown}`)
  }

  const cell = (x: { median: number; min: number; max: number }) =>
    ROUNDS > 1 ? `${fixed(x.median, 2)} (${fixed(x.min, 2)}-${fixed(x.max, 2)})` : fixed(x.median, 2)
  for (const pass of PASSES) {
    const ratioRows = MODES.flatMap((mode) =>
      selectedRoutes().flatMap((route) => {
        const r = ratios(mode as Mode, route.label, pass)
        return r === undefined ? [] : [{ mode, route: route.label, r }]
      })
    )
    if (ratioRows.length === 0) continue
    const header = ["route", "mode", "req/s", "server CPU/req", "PG CPU/req", "server+PG CPU/req", "p99"]
    const body = ratioRows.map(({ mode, route, r }) => [
      route,
      mode,
      cell(r.rps),
      cell(r.cpu),
      cell(r.pg),
      cell(r.total),
      cell(r.p99)
    ])
    const t = tables(header, body, 2)
    const order =
      PASSES.length > 1 ? `, order ${pass} (${pass === 1 ? "ours" : "the other build"} in the first slot)` : ""
    const title = `Ours / bare on PostgreSQL${order} (per-round ratios, median${ROUNDS > 1 ? " (min-max)" : ""}): req/s below 1 and CPU above 1 are our overhead`
    say(`\n${title}\n${t.text}`, `\n**${title}**\n\n${t.markdown}`)
  }
  if (PASSES.length > 1) {
    const body = MODES.flatMap((mode) =>
      selectedRoutes().flatMap((route) => {
        const one = ratios(mode as Mode, route.label, 1)
        const two = ratios(mode as Mode, route.label, 2)
        if (one === undefined || two === undefined) return []
        const u = unbiased(one, two)
        const pair = (x: { change: number; slot: number }) => `${fixed(x.change, 3)} (${fixed(x.slot, 3)})`
        return [[route.label, mode, pair(u.rps), pair(u.cpu), pair(u.pg), pair(u.total), pair(u.p99)]]
      })
    )
    const header = ["route", "mode", "req/s", "server CPU/req", "PG CPU/req", "server+PG CPU/req", "p99"]
    const t = tables(header, body, 2)
    const title =
      "Ours / the other build, both orders: sqrt(order 1 x order 2) of the medians, the first slot's bias removed (in brackets: that bias, sqrt(order 1 / order 2))"
    say(`\n${title}\n${t.text}`, `\n**${title}**\n\n${t.markdown}`)
  }

  if (coldStarts.length > 0) {
    const t = tables(
      ["server and storage", "spawn to first 200 ms", "idle RSS MB"],
      coldStarts.map((c) => [c.what, fixed(c.ms, 0), fixed(c.idleRssMb, 0)]),
      1
    )
    const title = `Cold start (ours: GET /api/v1/openapi.json; bare: GET /api/v1/contacts/{id})${PROFILE ? " (servers after the first under --cpu-prof)" : ""}`
    say(`\n${title}\n${t.text}`, `\n**${title}**\n\n${t.markdown}`)
  }
  console.log("\nMarkdown:")
  console.log(markdown.join("\n"))
}

// ---------------------------------------------------------------------------------------------

const header = () => {
  const git = (args: ReadonlyArray<string>) =>
    spawnSync("git", [...args], { cwd: ROOT, encoding: "utf8" }).stdout?.trim() ?? ""
  const head = git(["rev-parse", "--short", "HEAD"])
  const dirty = git(["status", "--porcelain"]).split("\n").filter(Boolean).length
  const wrkVersion = spawnSync(WRK, ["--version"], { encoding: "utf8" }).stdout?.split("\n")[0]?.trim() ?? "?"
  console.log(
    `bench (${SCENARIO}): ${new Date().toISOString()}, commit ${head || "?"}${dirty > 0 ? ` + ${dirty} uncommitted changes` : ""}, ` +
      `node ${process.version}, ${CPU_COUNT} cores, ${wrkVersion}; ` +
      (PIN
        ? `${WORKERS === undefined ? "servers" : "the bare server"} pinned to core ${SERVER_CORE}, wrk and the harness to core ${LOAD_CORE}`
        : "no pinning (taskset missing or one core)") +
      (WORKERS === undefined ? "" : `; ours as crm serve --workers ${WORKERS} on cores ${ALL_CORES}`) +
      `; ${SECONDS} s per run after ${WARMUP} s warm-up, ` +
      (SCENARIO === "scale" ? "" : `${CONNECTIONS} connections and `) +
      `${WRK_THREADS} thread(s) per wrk` +
      (PROFILE ? "; CPU profiles on" : "")
  )
}

const main = async (): Promise<number> => {
  const missing = wrkMissing()
  if (missing !== undefined) {
    console.error(`bench: ${missing}`)
    return 2
  }
  if (PIN) spawnSync("taskset", ["-a", "-cp", LOAD_CORE, String(process.pid)], { stdio: "ignore" })
  header()
  if (SCENARIO === "scale") {
    const { runScale } = await import("./scale.js")
    await runScale()
  } else if (SCENARIO === "standard") {
    for (const engine of ENGINES) {
      if (state.interrupted) break
      try {
        if (engine === "postgres") await runPostgres()
        else if (engine === "pglite") await runPglite()
        else throw new Error(`unknown engine ${engine} (postgres or pglite)`)
      } catch (error) {
        if (state.interrupted) break
        problems.push(`${engine}: ${error instanceof Error ? error.message : String(error)}`)
        console.error(`!! ${engine} failed:`, error instanceof Error ? error.message : error)
      }
    }
    if (state.interrupted) return 130
    printReport()
    for (const report of profiles) console.log(`\n${report}`)
  } else {
    console.error(`bench: unknown BENCH_SCENARIO ${SCENARIO} (standard or scale)`)
    return 2
  }
  if (state.interrupted) return 130
  return findings()
}

await runBench(main)
