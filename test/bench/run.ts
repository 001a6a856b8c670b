/**
 * `npm run bench`: the CRM server (as shipped, `crm serve`, in a child process) on PGlite and on
 * the PostgreSQL server, driven by autocannon, beside a bare node:http + pg baseline doing the
 * same SQL (test/bench/baseline.ts) on the PostgreSQL server. See docs/benchmarks.md.
 *
 * Env:
 *   BENCH_SECONDS (10)          measured seconds per route and server
 *   BENCH_WARMUP_SECONDS (2)    unmeasured warm-up before each measured run
 *   BENCH_CONNECTIONS (32)      autocannon connections
 *   BENCH_ROUNDS (3)            rounds per server and route; the report takes the median round
 *   BENCH_KEYS (128)            API keys per run, rotated per request (see "keys" in the doc)
 *   BENCH_SEED (200)            contacts seeded before the runs
 *   BENCH_ENGINES (pglite,postgres)
 *   BENCH_ROUTES (get,list,create)
 *   BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres)  server for CREATE/DROP DATABASE
 *   BENCH_PROFILE=1             run both servers under `node --cpu-prof` and summarise the profiles
 *   BENCH_PROFILE_TOP (25)
 *   BENCH_PROFILE_OUT           a directory to keep the raw .cpuprofile files in
 *   BENCH_CHECK_SQL (1)         0 skips the SQL parity check of the baseline (needs the server log)
 *   BENCH_PG_LOG                the PostgreSQL server log, when pg_current_logfile() does not say
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import {
  accessSync,
  closeSync,
  constants,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync
} from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import autocannon, { type Request, type Result } from "autocannon"
import pg from "pg"
import { type CpuProfile, format as formatProfile, summarise, type Window } from "./profile.js"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))

const envNumber = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`)
  return value
}

const SECONDS = envNumber("BENCH_SECONDS", 10)
const WARMUP = envNumber("BENCH_WARMUP_SECONDS", 2)
const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 32)
const KEYS = envNumber("BENCH_KEYS", 128)
const ROUNDS = envNumber("BENCH_ROUNDS", 3)
const SEED = envNumber("BENCH_SEED", 200)
const PROFILE = process.env.BENCH_PROFILE === "1"
const PROFILE_TOP = envNumber("BENCH_PROFILE_TOP", 25)
const ENGINES = (process.env.BENCH_ENGINES ?? "pglite,postgres")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean)
const ROUTE_NAMES = (process.env.BENCH_ROUTES ?? "get,list,create")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean)
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const ADMIN_TOKEN = "bench"
const RATE_LIMIT = "1000000000"
const POOL_SIZE = "10" // @effect/sql-pg's default (pg's `max`), which layerServer keeps
const SERVER_CORE = "1"
const LOAD_CORE = "0"

// ---------------------------------------------------------------------------------------------
// Clean-up: everything started or created registers its undo here; run once, newest first.

const cleanups: Array<{ readonly what: string; readonly run: () => Promise<void> }> = []
let cleaning: Promise<void> | undefined
const cleanup = (): Promise<void> =>
  (cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step.run()
      } catch (error) {
        console.error(`clean-up of ${step.what} failed:`, error)
      }
    }
  })())

let interrupted = false

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupted = true
    console.error(`\n${signal}: stopping servers, removing temp dirs, dropping the bench database...`)
    load?.stop()
    void cleanup().finally(() => process.exit(130))
  })
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const nowUs = () => Number(process.hrtime.bigint() / 1000n)

// ---------------------------------------------------------------------------------------------
// Processes

const hasTaskset = spawnSync("taskset", ["-V"], { stdio: "ignore" }).status === 0
const cpuCount = (await import("node:os")).cpus().length
const PIN = hasTaskset && cpuCount >= 2

const CLK_TCK = (() => {
  const out = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" })
  const value = Number(out.stdout?.trim())
  return Number.isFinite(value) && value > 0 ? value : 100
})()

interface Child {
  readonly name: string
  readonly proc: ChildProcess
  readonly exited: Promise<number | null>
  /** Monotonic µs at spawn, to line the CPU profile up with the measured windows. */
  readonly spawnedAtUs: number
  output: string
}

const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of [
    "DATABASE_URL",
    "CRM_DATA_DIR",
    "CRM_STORAGE",
    "CRM_TRUSTED_PROXIES",
    "NODE_OPTIONS",
    "CRM_URL"
  ]) {
    delete env[name]
  }
  return { ...env, ...extra }
}

const startChild = (name: string, nodeArgs: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Child => {
  const [command, args] = PIN
    ? ["taskset", ["-c", SERVER_CORE, process.execPath, ...nodeArgs]]
    : [process.execPath, [...nodeArgs]]
  const proc = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
  const child: Child = {
    name,
    proc,
    spawnedAtUs: nowUs(),
    output: "",
    exited: new Promise((resolve) => proc.on("exit", (code, signal) => resolve(code ?? (signal === null ? null : -1))))
  }
  const keep = (chunk: Buffer) => {
    child.output = (child.output + chunk.toString("utf8")).slice(-20_000)
  }
  proc.stdout!.on("data", keep)
  proc.stderr!.on("data", keep)
  cleanups.push({ what: `process ${name}`, run: () => stopChild(child) })
  return child
}

const isRunning = (child: Child) => child.proc.exitCode === null && child.proc.signalCode === null

/** SIGINT (graceful: the CRM server closes its pool, --cpu-prof writes its file), SIGKILL after 20 s. */
const stopChild = async (child: Child): Promise<void> => {
  if (!isRunning(child)) return
  child.proc.kill("SIGINT")
  const done = await Promise.race([child.exited.then(() => true), sleep(20_000).then(() => false)])
  if (!done) {
    console.error(`${child.name} did not stop within 20 s of SIGINT; killing it`)
    child.proc.kill("SIGKILL")
    await child.exited
  }
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

const tail = (child: Child) => child.output.trim().split("\n").slice(-40).join("\n")

const waitUntilAnswers = async (child: Child, base: string, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!isRunning(child)) {
      throw new Error(
        `${child.name} exited with ${child.proc.exitCode ?? child.proc.signalCode} before answering:\n${tail(child)}`
      )
    }
    try {
      await fetch(`${base}/api/v1/me`, { signal: AbortSignal.timeout(2000) })
      return
    } catch {
      await sleep(200)
    }
  }
  throw new Error(`${child.name} did not answer within ${timeoutMs / 1000} s:\n${tail(child)}`)
}

// CPU time (user + system) of a process and of all PostgreSQL server processes, in ms.
const procCpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK
  } catch {
    return Number.NaN
  }
}

/**
 * CPU of the whole PostgreSQL server: every live postgres process, plus what the postmaster has
 * reaped from backends that exited meanwhile (its cutime + cstime), so a pool closing idle
 * connections does not make the figure go backwards.
 */
const postgresCpuMs = (): number => {
  const stats = new Map<number, { ppid: number; own: number; reaped: number }>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))
      if (comm !== "postgres") continue
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      stats.set(Number(entry), {
        ppid: Number(fields[1]),
        own: Number(fields[11]) + Number(fields[12]),
        reaped: Number(fields[13]) + Number(fields[14])
      })
    } catch {
      // gone in between
    }
  }
  let ticks = 0
  for (const { ppid, own, reaped } of stats.values()) ticks += own + (stats.has(ppid) ? 0 : reaped)
  return (ticks * 1000) / CLK_TCK
}

/** Busy CPU of the whole machine (all cores), in ms, from /proc/stat. */
const machineBusyMs = (): number => {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const busy = fields[0]! + fields[1]! + fields[2]! + fields[5]! + fields[6]! + fields[7]!
    return (busy * 1000) / CLK_TCK
  } catch {
    return Number.NaN
  }
}

const selfCpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers for the set-up (admin API and seeding)

interface Reply {
  readonly status: number
  readonly text: string
  readonly body: any
  /** Sorted, without the ones node:http adds by itself. */
  readonly headerNames: ReadonlyArray<string>
}

/** Keys and value types, in order (arrays by their first element): what the two servers must agree on. */
const shapeOf = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.length === 0 ? "" : shapeOf(value[0])}]`
  if (value === null) return "null"
  if (typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}:${shapeOf(v)}`)
      .join(",")}}`
  return typeof value
}

const call = async (
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {}
): Promise<Reply> => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  const headerNames = [...response.headers.keys()]
    .filter((name) => !["date", "connection", "keep-alive", "transfer-encoding"].includes(name))
    .sort()
  return { status: response.status, text, body: parsed, headerNames }
}

const expectStatus = (reply: Reply, status: number, what: string): Reply => {
  if (reply.status !== status)
    throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 500)}`)
  return reply
}

const inBatches = async <A>(n: number, width: number, f: (i: number) => Promise<A>): Promise<Array<A>> => {
  const out: Array<A> = []
  for (let start = 0; start < n; start += width) {
    const batch = await Promise.all(Array.from({ length: Math.min(width, n - start) }, (_, j) => f(start + j)))
    out.push(...batch)
  }
  return out
}

const createKeys = (base: string, organisationId: string, n: number): Promise<Array<string>> =>
  inBatches(
    n,
    8,
    async () =>
      expectStatus(
        await call(base, "POST", `/admin/v1/organisations/${organisationId}/keys`, ADMIN_TOKEN, {
          scopes: ["read", "write"]
        }),
        201,
        "POST /admin/v1/organisations/{id}/keys"
      ).body.key as string
  )

// ---------------------------------------------------------------------------------------------
// Routes under load

interface RouteSpec {
  readonly id: string
  readonly label: string
  readonly request: (keys: ReadonlyArray<string>, ids: ReadonlyArray<string>) => Request
}

/** Round-robin over the run's keys, so that no single rate-limit row serialises the run. */
const rotate = <A>(values: ReadonlyArray<A>) => {
  let i = 0
  return () => values[i++ % values.length]!
}

const ROUTES: ReadonlyArray<RouteSpec> = [
  {
    id: "get",
    label: "GET /contacts/{id}",
    request: (keys, ids) => {
      const key = rotate(keys)
      const id = rotate(ids)
      return {
        method: "GET",
        setupRequest: (request) => ({
          ...request,
          path: `/api/v1/contacts/${id()}`,
          headers: { ...request.headers, authorization: `Bearer ${key()}` }
        })
      }
    }
  },
  {
    id: "list",
    label: "GET /contacts?limit=50",
    request: (keys) => {
      const key = rotate(keys)
      return {
        method: "GET",
        setupRequest: (request) => ({
          ...request,
          path: "/api/v1/contacts?limit=50",
          headers: { ...request.headers, authorization: `Bearer ${key()}` }
        })
      }
    }
  },
  {
    id: "create",
    label: "POST /contacts",
    request: (keys) => {
      const key = rotate(keys)
      const tag = randomBytes(6).toString("hex")
      let n = 0
      return {
        method: "POST",
        setupRequest: (request) => {
          const i = n++
          return {
            ...request,
            path: "/api/v1/contacts",
            headers: {
              ...request.headers,
              authorization: `Bearer ${key()}`,
              "content-type": "application/json",
              "idempotency-key": `bench-${tag}-${i}`
            },
            body: JSON.stringify({
              first_name: "Bench",
              last_name: `Load ${i}`,
              email: `load-${tag}-${i}@bench.example`
            })
          }
        }
      }
    }
  }
]

interface Row {
  readonly round: number
  readonly engine: string
  readonly server: "ours" | "baseline"
  readonly route: string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly total: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly statusCodes: string
  readonly serverCpuMsPerReq: number
  readonly serverCpuShare: number
  readonly pgCpuMsPerReq: number | undefined
  /** Cores busy with autocannon (this process) and with anything else on the machine. */
  readonly loadCpuShare: number
  readonly otherCpuShare: number
}

const rows: Array<Row> = []
const problems: Array<string> = []

/** The load in flight, so that an interrupt stops it before the servers are asked to stop. */
let load: { stop: () => void } | undefined

const drive = async (base: string, request: Request, seconds: number): Promise<Result> => {
  const instance = autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    requests: [request]
  })
  load = instance
  try {
    return await instance
  } finally {
    load = undefined
  }
}

const codes = (result: Result) =>
  Object.entries(result.statusCodeStats)
    .map(([code, { count }]) => `${code}:${count}`)
    .join(" ")

const measure = async (
  round: number,
  engine: string,
  server: "ours" | "baseline",
  child: Child,
  base: string,
  route: RouteSpec,
  keys: ReadonlyArray<string>,
  ids: ReadonlyArray<string>,
  windows: Array<Window>
): Promise<void> => {
  const warm = await drive(base, route.request(keys, ids), WARMUP)
  if (warm.non2xx + warm.errors + warm.timeouts > 0) {
    problems.push(
      `${engine}/${server}/${route.label} warm-up: non-2xx ${warm.non2xx}, errors ${warm.errors}, timeouts ${warm.timeouts} (${codes(warm)})`
    )
  }
  const cpu0 = procCpuMs(child.proc.pid!)
  const pg0 = engine === "postgres" ? postgresCpuMs() : 0
  const machine0 = machineBusyMs()
  const self0 = selfCpuMs()
  const from = nowUs()
  const result = await drive(base, route.request(keys, ids), SECONDS)
  const to = nowUs()
  if (interrupted) throw new Error("interrupted")
  const cpu1 = procCpuMs(child.proc.pid!)
  const pg1 = engine === "postgres" ? postgresCpuMs() : 0
  const machine1 = machineBusyMs()
  const self1 = selfCpuMs()
  windows.push({ from, to, requests: result.requests.total, cpuMs: cpu1 - cpu0 })
  const total = result.requests.total
  const seconds = (to - from) / 1e6
  const row: Row = {
    round,
    engine,
    server,
    route: route.label,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: codes(result),
    serverCpuMsPerReq: total === 0 ? Number.NaN : (cpu1 - cpu0) / total,
    serverCpuShare: (cpu1 - cpu0) / 1000 / seconds,
    pgCpuMsPerReq: engine === "postgres" && total > 0 ? (pg1 - pg0) / total : undefined,
    loadCpuShare: (self1 - self0) / 1000 / seconds,
    // What the machine was busy with besides the server, PostgreSQL and autocannon (this process).
    otherCpuShare: Math.max(0, machine1 - machine0 - (cpu1 - cpu0) - (pg1 - pg0) - (self1 - self0)) / 1000 / seconds
  }
  rows.push(row)
  console.log(
    `  ${server.padEnd(8)} ${route.label.padEnd(22)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50.toFixed(1)} ms  ` +
      `p99 ${row.p99.toFixed(1)} ms  non-2xx ${row.non2xx}  errors ${row.errors}  timeouts ${row.timeouts}  [${row.statusCodes}]  ` +
      `server CPU ${row.serverCpuMsPerReq.toFixed(3)} ms/req (${(row.serverCpuShare * 100).toFixed(0)}% of a core)` +
      (row.pgCpuMsPerReq === undefined ? "" : `  postgres CPU ${row.pgCpuMsPerReq.toFixed(3)} ms/req`) +
      `  autocannon ${(row.loadCpuShare * 100).toFixed(0)}%, other processes ${(row.otherCpuShare * 100).toFixed(0)}% of a core`
  )
  if (row.otherCpuShare > 0.15) {
    problems.push(
      `${engine}/${server}/${route.label}: other processes used ${(row.otherCpuShare * 100).toFixed(0)}% of a core during the run; the figures are disturbed`
    )
  }
  if (row.non2xx + row.errors + row.timeouts > 0) {
    problems.push(
      `${engine}/${server}/${route.label}: non-2xx ${row.non2xx}, errors ${row.errors}, timeouts ${row.timeouts} (${row.statusCodes})`
    )
    console.log(`  !! ${child.name} output (tail):\n${tail(child)}`)
  }
  if (!isRunning(child))
    throw new Error(
      `${child.name} died under load (exit ${child.proc.exitCode ?? child.proc.signalCode}):\n${tail(child)}`
    )
}

// ---------------------------------------------------------------------------------------------
// One engine

/** A server under test: its process, its address and where --cpu-prof writes (when profiling). */
interface Served {
  readonly child: Child
  readonly base: string
  readonly profileDir: string | undefined
}

const profileArgs = (profile: boolean): { dir: string | undefined; args: Array<string> } => {
  if (!profile) return { dir: undefined, args: [] }
  const dir = mkdtempSync(join(tmpdir(), "crm-bench-prof-"))
  cleanups.push({ what: `profile dir ${dir}`, run: async () => rmSync(dir, { recursive: true, force: true }) })
  return { dir, args: ["--cpu-prof", `--cpu-prof-dir=${dir}`] }
}

const startOurs = async (engine: string, storageEnv: Record<string, string>, profile = PROFILE): Promise<Served> => {
  const port = await freePort()
  const prof = profileArgs(profile)
  const child = startChild(
    `crm serve (${engine})`,
    [...prof.args, "examples/server/bin/crm.js", "serve"],
    childEnv({
      PORT: String(port),
      HOST: "127.0.0.1",
      CRM_ADMIN_TOKEN: ADMIN_TOKEN,
      CRM_RATE_LIMIT: RATE_LIMIT,
      ...storageEnv
    })
  )
  const base = `http://127.0.0.1:${port}`
  const started = Date.now()
  await waitUntilAnswers(child, base, 180_000)
  console.log(`  our server (${engine}) answers after ${((Date.now() - started) / 1000).toFixed(1)} s on ${base}`)
  return { child, base, profileDir: prof.dir }
}

const seed = async (base: string): Promise<{ organisationId: string; ids: Array<string> }> => {
  const organisation = expectStatus(
    await call(base, "POST", "/admin/v1/organisations", ADMIN_TOKEN, { name: "Bench Ltd" }),
    201,
    "POST /admin/v1/organisations"
  ).body as { id: string }
  const [seedKey] = await createKeys(base, organisation.id, 1)
  const tag = randomBytes(4).toString("hex")
  const ids = await inBatches(
    SEED,
    8,
    async (i) =>
      expectStatus(
        await call(
          base,
          "POST",
          "/api/v1/contacts",
          seedKey!,
          {
            first_name: "Seed",
            last_name: `Contact ${i}`,
            email: `seed-${tag}-${i}@bench.example`
          },
          { "idempotency-key": `seed-${tag}-${i}` }
        ),
        201,
        "seeding POST /api/v1/contacts"
      ).body.id as string
  )
  console.log(`  seeded organisation ${organisation.id} with ${ids.length} contacts`)
  return { organisationId: organisation.id, ids }
}

/** Stops the server (so --cpu-prof writes its file) and summarises the samples inside `windows`. */
const profileReport = async (
  served: Served,
  windows: ReadonlyArray<Window>,
  label: string,
  fileLabel: string
): Promise<string | undefined> => {
  if (served.profileDir === undefined) return undefined
  await stopChild(served.child)
  const files = readdirSync(served.profileDir).filter((file) => file.endsWith(".cpuprofile"))
  if (files.length === 0) {
    problems.push(
      `${label}: no .cpuprofile written (exit ${served.child.proc.exitCode ?? served.child.proc.signalCode})`
    )
    return undefined
  }
  // One process, one file; the largest if a worker wrote another.
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
  return formatProfile(
    summarise(profile, shifted, PROFILE_TOP),
    `${label}, measured windows only${skew === 0 ? "" : " (aligned by spawn time)"}`
  )
}

const startBaseline = async (databaseUrl: string, profile = false): Promise<Served> => {
  const port = await freePort()
  const prof = profileArgs(profile)
  const child = startChild(
    "baseline",
    [...prof.args, "--import", "tsx", "test/bench/baseline.ts"],
    childEnv({
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      POOL_SIZE,
      CRM_RATE_LIMIT: RATE_LIMIT
    })
  )
  const base = `http://127.0.0.1:${port}`
  await waitUntilAnswers(child, base, 60_000)
  return { child, base, profileDir: prof.dir }
}

// ---------------------------------------------------------------------------------------------
// SQL parity: with log_statement = 'all' on the bench database, one request of each route against
// each server, and the logged statement sequences must be identical (parameters aside). This
// keeps the baseline honest while the storage code changes.

const withAdmin = async <A>(f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

const serverLogFile = async (): Promise<string | undefined> => {
  const candidates: Array<string> = []
  if (process.env.BENCH_PG_LOG !== undefined) candidates.push(process.env.BENCH_PG_LOG)
  try {
    await withAdmin(async (client) => {
      const { rows } = await client.query<{ file: string | null; dir: string; version: string }>(
        "SELECT pg_current_logfile() AS file, current_setting('data_directory') AS dir, current_setting('server_version_num') AS version"
      )
      const { file, dir, version } = rows[0]!
      if (file !== null) candidates.push(file.startsWith("/") ? file : join(dir, file))
      candidates.push(`/var/log/postgresql/postgresql-${Math.floor(Number(version) / 10000)}-main.log`)
    })
  } catch {
    // not a superuser, or an old server: the check is skipped below
  }
  return candidates.find((file) => {
    try {
      accessSync(file, constants.R_OK)
      return true
    } catch {
      return false
    }
  })
}

const fileSize = (file: string) => statSync(file).size

const readFrom = (file: string, from: number): string => {
  const length = Math.max(0, fileSize(file) - from)
  const buffer = Buffer.alloc(length)
  const fd = openSync(file, "r")
  try {
    readSync(fd, buffer, 0, length, from)
  } finally {
    closeSync(fd)
  }
  return buffer.toString("utf8")
}

/** Statements logged for `database` after byte `from` of the server log, whitespace-normalised. */
const loggedStatements = (file: string, from: number, database: string): Array<string> => {
  const text = readFrom(file, from)
  const out: Array<string> = []
  let current: string | undefined
  const flush = () => {
    if (current !== undefined) out.push(current.replace(/\s+/g, " ").trim())
    current = undefined
  }
  for (const line of text.split("\n")) {
    if (line.startsWith("\t")) {
      if (current !== undefined) current += ` ${line}`
      continue
    }
    flush()
    if (!line.includes(`@${database} `)) continue
    const match = /LOG: {2}(?:execute <unnamed>|statement): (.*)$/.exec(line)
    if (match !== null) current = match[1]!
  }
  flush()
  return out
}

const checkSqlParity = async (database: string, databaseUrl: string): Promise<void> => {
  const log = await serverLogFile()
  if (log === undefined) {
    console.log("  SQL parity check skipped: cannot read the PostgreSQL server log (set BENCH_PG_LOG)")
    return
  }
  await withAdmin((client) => client.query(`ALTER DATABASE "${database}" SET log_statement = 'all'`))
  const ours = await startOurs("postgres, SQL check", { DATABASE_URL: databaseUrl }, false)
  let base: Served | undefined
  try {
    const organisation = expectStatus(
      await call(ours.base, "POST", "/admin/v1/organisations", ADMIN_TOKEN, { name: "SQL check" }),
      201,
      "POST /admin/v1/organisations"
    ).body as { id: string }
    const [key] = await createKeys(ours.base, organisation.id, 1)
    base = await startBaseline(databaseUrl)
    const sequences: Array<{ server: string; statements: Array<string>; shapes: string }> = []
    for (const [server, url] of [
      ["ours", ours.base],
      ["baseline", base.base]
    ] as const) {
      await sleep(300)
      const from = fileSize(log)
      const tag = randomBytes(4).toString("hex")
      const post = expectStatus(
        await call(
          url,
          "POST",
          "/api/v1/contacts",
          key!,
          { first_name: "Check", last_name: server, email: `check-${tag}@bench.example` },
          {
            "idempotency-key": `check-${tag}`
          }
        ),
        201,
        `${server} POST /api/v1/contacts`
      )
      const get = expectStatus(
        await call(url, "GET", `/api/v1/contacts/${post.body.id}`, key!),
        200,
        `${server} GET /api/v1/contacts/{id}`
      )
      const list = expectStatus(
        await call(url, "GET", "/api/v1/contacts?limit=50", key!),
        200,
        `${server} GET /api/v1/contacts?limit=50`
      )
      await sleep(500)
      const shapes = [post, get, list]
        .map((reply) => `${reply.status} ${reply.headerNames.join(",")} ${shapeOf(reply.body)}`)
        .join("\n")
      sequences.push({ server, statements: loggedStatements(log, from, database), shapes })
    }
    if (sequences[0]!.shapes !== sequences[1]!.shapes) {
      problems.push(`response shapes differ:\n  ours:\n${sequences[0]!.shapes}\n  baseline:\n${sequences[1]!.shapes}`)
    } else {
      console.log("  response check: same statuses, headers and JSON shapes from both servers")
    }
    const [a, b] = [sequences[0]!.statements, sequences[1]!.statements]
    if (a.length === 0) {
      problems.push(`SQL parity check: no statements of ${database} found in ${log}; log format not understood`)
      return
    }
    const differ = a.length !== b.length || a.some((statement, i) => statement !== b[i])
    if (!differ) {
      console.log(
        `  SQL parity check: identical statement sequences (${a.length} statements for POST + GET + list), from ${log}`
      )
    } else {
      const lines = Array.from({ length: Math.max(a.length, b.length) }, (_, i) =>
        a[i] === b[i]
          ? `      = ${a[i]!.slice(0, 140)}`
          : `      ours:     ${a[i]?.slice(0, 140) ?? "(none)"}\n      baseline: ${b[i]?.slice(0, 140) ?? "(none)"}`
      )
      problems.push(
        `SQL parity check: the baseline's statements differ from ours; update test/bench/baseline.ts:\n${lines.join("\n")}`
      )
      console.log(`  !! SQL parity check: statements differ (see PROBLEMS)`)
    }
  } finally {
    if (base !== undefined) await stopChild(base.child)
    await stopChild(ours.child)
    await withAdmin((client) => client.query(`ALTER DATABASE "${database}" RESET log_statement`))
  }
}

const runEngine = async (engine: string): Promise<Array<string>> => {
  console.log(`\n== ${engine} ==`)
  let storageEnv: Record<string, string>
  let databaseUrl: string | undefined
  if (engine === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "crm-bench-pglite-"))
    cleanups.push({ what: `PGlite dir ${dir}`, run: async () => rmSync(dir, { recursive: true, force: true }) })
    storageEnv = { CRM_DATA_DIR: join(dir, "data") }
  } else if (engine === "postgres") {
    const name = `crm_bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`
    const admin = new pg.Client({ connectionString: ADMIN_URL })
    await admin.connect()
    try {
      await admin.query(`CREATE DATABASE "${name}"`)
    } finally {
      await admin.end()
    }
    cleanups.push({
      what: `database ${name}`,
      run: async () => {
        const dropper = new pg.Client({ connectionString: ADMIN_URL })
        await dropper.connect()
        try {
          await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
          console.log(`  dropped database ${name}`)
        } finally {
          await dropper.end()
        }
      }
    })
    const url = new URL(ADMIN_URL)
    url.pathname = `/${name}`
    databaseUrl = url.toString()
    storageEnv = { DATABASE_URL: databaseUrl }
    console.log(`  database ${name}`)
    if (process.env.BENCH_CHECK_SQL !== "0") await checkSqlParity(name, databaseUrl)
  } else {
    throw new Error(`unknown engine ${engine} (pglite or postgres)`)
  }

  const ours = await startOurs(engine, storageEnv)
  const { organisationId, ids } = await seed(ours.base)

  let baseline: Served | undefined
  if (databaseUrl !== undefined) {
    baseline = await startBaseline(databaseUrl, PROFILE)
    console.log(`  baseline answers on ${baseline.base}`)
  }

  const windows: Array<Window> = []
  const baselineWindows: Array<Window> = []
  const routes = ROUTES.filter((route) => ROUTE_NAMES.includes(route.id))
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`  round ${round} of ${ROUNDS}`)
    for (const route of routes) {
      // Fresh keys per run: every run starts with empty rate-limit windows. The order of the two
      // servers alternates between rounds, so neither always runs on the warmer machine.
      const runOurs = async () =>
        measure(
          round,
          engine,
          "ours",
          ours.child,
          ours.base,
          route,
          await createKeys(ours.base, organisationId, KEYS),
          ids,
          windows
        )
      const runBaseline = async () => {
        if (baseline !== undefined) {
          const keys = await createKeys(ours.base, organisationId, KEYS)
          await measure(round, engine, "baseline", baseline.child, baseline.base, route, keys, ids, baselineWindows)
        }
      }
      if (round % 2 === 1) {
        await runOurs()
        await runBaseline()
      } else {
        await runBaseline()
        await runOurs()
      }
    }
  }
  const reports: Array<string> = []
  const oursReport = await profileReport(ours, windows, `our server on ${engine}`, `crm-${engine}`)
  if (oursReport !== undefined) reports.push(oursReport)
  if (baseline !== undefined) {
    const baselineReport = await profileReport(baseline, baselineWindows, `baseline on ${engine}`, `baseline-${engine}`)
    if (baselineReport !== undefined) reports.push(baselineReport)
    await stopChild(baseline.child)
  }
  return reports
}

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (x: number | undefined, digits: number) => (x === undefined || Number.isNaN(x) ? "-" : x.toFixed(digits))

/** Per engine, server and route: the round with the median req/s, and the spread over rounds. */
interface Summary extends Row {
  readonly rounds: number
  readonly minRps: number
  readonly maxRps: number
  /** Over all rounds. */
  readonly failures: number
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const medianRounds = (): Array<Summary> => {
  const groups = new Map<string, Array<Row>>()
  for (const row of rows) {
    const key = `${row.engine}\u0000${row.server}\u0000${row.route}`
    groups.set(key, [...(groups.get(key) ?? []), row])
  }
  return [...groups.values()].map((group) => {
    const sorted = [...group].sort((a, b) => a.rps - b.rps)
    const middle = sorted[Math.floor((sorted.length - 1) / 2)]!
    return {
      ...middle,
      rounds: group.length,
      minRps: sorted[0]!.rps,
      maxRps: sorted[sorted.length - 1]!.rps,
      failures: group.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0)
    }
  })
}

/** ours/baseline per round (the two runs of a round are minutes apart at most), then the median. */
const roundRatios = (route: string) => {
  const pick = (server: string) =>
    rows.filter((r) => r.engine === "postgres" && r.server === server && r.route === route)
  const ours = pick("ours")
  const base = pick("baseline")
  const rps: Array<number> = []
  const cpu: Array<number> = []
  for (const o of ours) {
    const b = base.find((r) => r.round === o.round)
    if (b === undefined) continue
    rps.push(o.rps / b.rps)
    cpu.push(b.serverCpuMsPerReq / o.serverCpuMsPerReq)
  }
  return rps.length === 0
    ? undefined
    : {
        rps: median(rps),
        rpsMin: Math.min(...rps),
        rpsMax: Math.max(...rps),
        cpu: median(cpu),
        cpuMin: Math.min(...cpu),
        cpuMax: Math.max(...cpu)
      }
}

const printTables = () => {
  const rows = medianRounds()
  const header = [
    "engine",
    "server",
    "route",
    "req/s",
    "(min-max)",
    "p50 ms",
    "p99 ms",
    "failed",
    "server CPU ms/req",
    "postgres CPU ms/req"
  ]
  const body = rows.map((r) => [
    r.engine,
    r.server,
    r.route,
    fixed(r.rps, 0),
    r.rounds > 1 ? `(${fixed(r.minRps, 0)}-${fixed(r.maxRps, 0)})` : "",
    fixed(r.p50, 1),
    fixed(r.p99, 1),
    String(r.failures),
    fixed(r.serverCpuMsPerReq, 3),
    fixed(r.pgCpuMsPerReq, 3)
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((line) => line[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  console.log(
    `\nResults: median of ${ROUNDS} round(s) by req/s (p50, p99 and CPU of that round); ${SECONDS} s measured after ${WARMUP} s warm-up, ` +
      `${CONNECTIONS} connections, ${KEYS} keys per run${PROFILE ? "; OUR SERVER UNDER --cpu-prof" : ""}. "failed" = non-2xx + errors + timeouts over all rounds.`
  )
  console.log(line(header))
  for (const cells of body) console.log(line(cells))

  const ratios = ROUTES.flatMap((route) => {
    const r = roundRatios(route.label)
    const ours = rows.find((x) => x.engine === "postgres" && x.server === "ours" && x.route === route.label)
    const base = rows.find((x) => x.engine === "postgres" && x.server === "baseline" && x.route === route.label)
    return r === undefined || ours === undefined || base === undefined ? [] : [{ route: route.label, r, ours, base }]
  })
  if (ratios.length > 0) {
    console.log("\nPostgreSQL server, ours / baseline (median of the per-round ratios, min-max):")
    console.log(
      `${"route".padEnd(22)}  ${"req/s ratio".padStart(20)}  ${"server CPU per request, baseline/ours".padStart(38)}  p50 ms ours/base  p99 ms ours/base`
    )
    for (const { route, r, ours, base } of ratios) {
      console.log(
        `${route.padEnd(22)}  ${`${r.rps.toFixed(2)} (${r.rpsMin.toFixed(2)}-${r.rpsMax.toFixed(2)})`.padStart(20)}  ` +
          `${`${r.cpu.toFixed(2)} (${r.cpuMin.toFixed(2)}-${r.cpuMax.toFixed(2)})`.padStart(38)}  ` +
          `${`${fixed(ours.p50, 1)}/${fixed(base.p50, 1)}`.padStart(16)}  ${`${fixed(ours.p99, 1)}/${fixed(base.p99, 1)}`.padStart(16)}`
      )
    }
  }

  // The same as markdown, for docs/benchmarks.md.
  console.log("\nMarkdown:\n")
  console.log(
    `| engine | server | route | req/s (median) | req/s min-max | p50 ms | p99 ms | failed | server CPU ms/req | postgres CPU ms/req |`
  )
  console.log(`|---|---|---|---:|---:|---:|---:|---:|---:|---:|`)
  for (const r of rows) {
    console.log(
      `| ${r.engine} | ${r.server} | \`${r.route}\` | ${fixed(r.rps, 0)} | ${fixed(r.minRps, 0)}-${fixed(r.maxRps, 0)} | ` +
        `${fixed(r.p50, 1)} | ${fixed(r.p99, 1)} | ${r.failures} | ${fixed(r.serverCpuMsPerReq, 3)} | ${fixed(r.pgCpuMsPerReq, 3)} |`
    )
  }
  if (ratios.length > 0) {
    console.log(`\n| route | ours / baseline, req/s | min-max | baseline / ours, server CPU per request | min-max |`)
    console.log(`|---|---:|---:|---:|---:|`)
    for (const { route, r } of ratios) {
      console.log(
        `| \`${route}\` | **${r.rps.toFixed(2)}** | ${r.rpsMin.toFixed(2)}-${r.rpsMax.toFixed(2)} | ${r.cpu.toFixed(2)} | ${r.cpuMin.toFixed(2)}-${r.cpuMax.toFixed(2)} |`
      )
    }
  }
}

// ---------------------------------------------------------------------------------------------

const main = async (): Promise<number> => {
  if (PIN) {
    spawnSync("taskset", ["-a", "-cp", LOAD_CORE, String(process.pid)], { stdio: "ignore" })
  }
  const git = (args: ReadonlyArray<string>) =>
    spawnSync("git", [...args], { cwd: ROOT, encoding: "utf8" }).stdout?.trim() ?? ""
  const head = git(["rev-parse", "--short", "HEAD"])
  const dirty = git(["status", "--porcelain"]).split("\n").filter(Boolean).length
  console.log(
    `bench: ${new Date().toISOString()}, commit ${head || "?"}${dirty > 0 ? ` + ${dirty} uncommitted changes` : ""}, ` +
      `node ${process.version}, ${cpuCount} cores; ` +
      (PIN
        ? `servers pinned to core ${SERVER_CORE}, autocannon on core ${LOAD_CORE}`
        : "no pinning (taskset missing or one core)") +
      `; ${SECONDS} s per run after ${WARMUP} s warm-up, ${CONNECTIONS} connections, ${KEYS} keys per run, ${SEED} seeded contacts` +
      (PROFILE ? "; CPU profile of our server" : "")
  )
  const profiles: Array<string> = []
  let failed = false
  for (const engine of ENGINES) {
    if (interrupted) break
    try {
      profiles.push(...(await runEngine(engine)))
    } catch (error) {
      if (interrupted) break
      failed = true
      problems.push(`${engine}: ${error instanceof Error ? error.message : String(error)}`)
      console.error(`!! ${engine} failed:`, error instanceof Error ? error.message : error)
    }
  }
  if (interrupted) return 130
  printTables()
  for (const report of profiles) console.log(`\n${report}`)
  if (problems.length > 0) {
    console.log("\nPROBLEMS (figures with errors are not valid measurements):")
    for (const problem of problems) console.log(`  - ${problem}`)
  }
  return failed || problems.length > 0 ? 1 : 0
}

let code = 1
try {
  code = await main()
} catch (error) {
  console.error(error)
} finally {
  await cleanup()
}
process.exit(code)
