/**
 * What the benchmark scenarios share: settings from the environment, clean-up, child processes
 * (pinned, profiled, timed from spawn to first answer), /proc readings (CPU, RSS), the admin API
 * and the bench database.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"

export const ROOT = fileURLToPath(new URL("../../", import.meta.url))
export const HERE = fileURLToPath(new URL("./", import.meta.url))

// ---------------------------------------------------------------------------------------------
// Settings

export const envNumber = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`)
  return value
}

export const envList = (name: string, fallback: string): Array<string> =>
  (process.env[name] ?? fallback)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)

export const SECONDS = envNumber("BENCH_SECONDS", 10)
export const WARMUP = envNumber("BENCH_WARMUP_SECONDS", 2)
export const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 64)
export const WRK_THREADS = envNumber("BENCH_WRK_THREADS", 1)
export const KEYS = envNumber("BENCH_KEYS", 128)
export const ROUNDS = envNumber("BENCH_ROUNDS", 3)
export const PROFILE = process.env.BENCH_PROFILE === "1"
/** Where each server's whole output (its request log, and `--trace-gc` given in BENCH_OURS_NODE_ARGS) is kept. */
export const LOG_DIR = process.env.BENCH_LOG_DIR || undefined
export const PROFILE_TOP = envNumber("BENCH_PROFILE_TOP", 25)
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
export const ADMIN_TOKEN = "bench"
export const RATE_LIMIT = "1000000000"
export const POOL_SIZE = "10"
export const SERVER_CORE = "1"
export const LOAD_CORE = "0"

export const CPU_COUNT = cpus().length
const HAS_TASKSET = spawnSync("taskset", ["-V"], { stdio: "ignore" }).status === 0
export const PIN = HAS_TASKSET && CPU_COUNT >= 2
/**
 * `BENCH_WORKERS=N`: our server as `crm serve --workers N`, free to run on every core rather than
 * pinned to the server core (N processes on one core would measure only their overhead), so that
 * its processes, PostgreSQL and the load share the machine as on a host. Compare N against
 * `BENCH_WORKERS=1`, which runs one process the same way, not against a pinned run.
 */
export const WORKERS = process.env.BENCH_WORKERS === undefined ? undefined : envNumber("BENCH_WORKERS", 1)
export const ALL_CORES = `0-${CPU_COUNT - 1}`
/** `BENCH_OURS_CORES`: the cores our server runs on instead (taskset's list, e.g. `0-1`). */
export const OURS_CORES = process.env.BENCH_OURS_CORES || undefined

/** The nearest-rank percentile `p` (0..100) of `values`; NaN for none. */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
export const nowUs = () => Number(process.hrtime.bigint() / 1000n)

// ---------------------------------------------------------------------------------------------
// Clean-up: everything started or created registers its undo here; run once, newest first.

const cleanups: Array<{ readonly what: string; readonly run: () => Promise<void> }> = []
let cleaning: Promise<void> | undefined

export const onCleanup = (what: string, run: () => Promise<void>) => {
  cleanups.push({ what, run })
}

export const cleanup = (): Promise<void> =>
  (cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step.run()
      } catch (error) {
        console.error(`clean-up of ${step.what} failed:`, error)
      }
    }
  })())

export const state = { interrupted: false }

/** Problems make the run exit non-zero: figures measured with errors are not measurements. */
export const problems: Array<string> = []
/** Worth knowing, not fatal (a busy machine, for example). */
export const notes: Array<string> = []

/** Prints the notes and problems of the run; its exit code: 1 when there was any problem. */
export const findings = (): number => {
  if (notes.length > 0) console.log(`\nNOTES:\n${notes.map((note) => `  - ${note}`).join("\n")}`)
  if (problems.length > 0) {
    console.log("\nPROBLEMS (figures with errors are not valid measurements):")
    for (const problem of new Set(problems)) console.log(`  - ${problem}`)
  }
  return problems.length > 0 ? 1 : 0
}

/** Runs a bench's `main` and exits with its code, after the clean-up (servers, files, database) whatever happened. */
export const runBench = async (main: () => Promise<number>): Promise<never> => {
  let code = 1
  try {
    code = await main()
  } catch (error) {
    console.error(error)
  } finally {
    await cleanup()
  }
  process.exit(code)
}

export const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onCleanup(`temp dir ${dir}`, async () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

// ---------------------------------------------------------------------------------------------
// /proc

export const CLK_TCK = (() => {
  const out = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" })
  const value = Number(out.stdout?.trim())
  return Number.isFinite(value) && value > 0 ? value : 100
})()

const statFields = (pid: number | "self"): Array<string> | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

/** utime + stime of a process (all its threads), in ms; NaN once it is gone. */
export const procCpuMs = (pid: number): number => {
  const fields = statFields(pid)
  return fields === undefined ? Number.NaN : ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK
}

/** The processes `pid` started, alive now (a supervisor's workers). */
const childrenOf = (pid: number): Array<number> => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)
    )
  } catch {
    return []
  }
}

/** `procCpuMs` of `pid` and of the processes it started (`BENCH_WORKERS`: the supervisor and its workers). */
export const procTreeCpuMs = (pid: number): number =>
  childrenOf(pid).reduce((sum, child) => sum + (procCpuMs(child) || 0), procCpuMs(pid))

/** `procRss` of `pid` and of the processes it started, added up. */
export const procTreeRss = (pid: number): { rssMb: number; hwmMb: number } =>
  childrenOf(pid).reduce((sum, child) => {
    const rss = procRss(child)
    return { rssMb: sum.rssMb + (rss.rssMb || 0), hwmMb: sum.hwmMb + (rss.hwmMb || 0) }
  }, procRss(pid))

/** CPU of this process plus its waited-for children (wrk, once it has exited), in ms. */
export const selfAndChildrenCpuMs = (): number => {
  const fields = statFields("self")
  if (fields === undefined) return Number.NaN
  return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK
}

/** Resident set size now and its peak (VmRSS, VmHWM), in MB. */
export const procRss = (pid: number): { rssMb: number; hwmMb: number } => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN)
    return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 }
  } catch {
    return { rssMb: Number.NaN, hwmMb: Number.NaN }
  }
}

/**
 * CPU of the whole PostgreSQL server: every live postgres process, plus what the postmaster has
 * reaped from backends that exited meanwhile (its cutime + cstime), so a pool closing idle
 * connections does not make the figure go backwards.
 */
export const postgresCpuMs = (): number => {
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
export const machineBusyMs = (): number => {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const busy = fields[0]! + fields[1]! + fields[2]! + fields[5]! + fields[6]! + fields[7]!
    return (busy * 1000) / CLK_TCK
  } catch {
    return Number.NaN
  }
}

// ---------------------------------------------------------------------------------------------
// Child processes

export interface Child {
  readonly name: string
  readonly proc: ChildProcess
  readonly exited: Promise<number | null>
  /** Monotonic µs at spawn, to line the CPU profile up with the measured windows. */
  readonly spawnedAtUs: number
  output: string
}

export const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
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

export const pinned = (core: string, command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  PIN ? ["taskset", ["-c", core, command, ...args]] : [command, [...args]]

export const isRunning = (child: Child) => child.proc.exitCode === null && child.proc.signalCode === null

/** SIGINT (graceful: the servers close their pools, --cpu-prof writes its file), SIGKILL after 20 s. */
export const stopChild = async (child: Child): Promise<void> => {
  if (!isRunning(child)) return
  child.proc.kill("SIGINT")
  const done = await Promise.race([child.exited.then(() => true), sleep(20_000).then(() => false)])
  if (!done) {
    console.error(`${child.name} did not stop within 20 s of SIGINT; killing it`)
    child.proc.kill("SIGKILL")
    await child.exited
  }
}

/** A node process on the server core, or on `cores` (with taskset, which execs: the pid is node's). */
export const startNode = (
  name: string,
  nodeArgs: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  cores: string = SERVER_CORE
): Child => {
  const [command, args] = pinned(cores, process.execPath, nodeArgs)
  const spawnedAtUs = nowUs()
  const proc = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
  const child: Child = {
    name,
    proc,
    spawnedAtUs,
    output: "",
    exited: new Promise((resolve) => proc.on("exit", (code, signal) => resolve(code ?? (signal === null ? null : -1))))
  }
  const log =
    LOG_DIR === undefined ? undefined : createWriteStream(join(LOG_DIR, `${name.replace(/[^\w.-]+/g, "_")}.log`))
  const keep = (chunk: Buffer) => {
    child.output = (child.output + chunk.toString("utf8")).slice(-20_000)
    log?.write(chunk)
  }
  proc.stdout!.on("data", keep)
  proc.stderr!.on("data", keep)
  if (log !== undefined) proc.on("close", () => log.end())
  onCleanup(`process ${name}`, () => stopChild(child))
  return child
}

export const tail = (child: Child) => child.output.trim().split("\n").slice(-40).join("\n")

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Polls `url` every 10 ms until it answers 200; the time from spawn, in ms. */
const firstOk = async (child: Child, url: string, headers: Record<string, string>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!isRunning(child)) {
      throw new Error(
        `${child.name} exited with ${child.proc.exitCode ?? child.proc.signalCode} before answering:\n${tail(child)}`
      )
    }
    try {
      const response = await fetch(url, { headers, signal: AbortSignal.timeout(5000) })
      await response.arrayBuffer()
      if (response.status === 200) return (nowUs() - child.spawnedAtUs) / 1000
    } catch {
      // not listening yet
    }
    await sleep(10)
  }
  throw new Error(`${child.name} did not answer 200 on ${url} within ${timeoutMs / 1000} s:\n${tail(child)}`)
}

/** A server under test: its process, its address, its start-up and where --cpu-prof writes. */
export interface Served {
  readonly child: Child
  readonly base: string
  readonly profileDir: string | undefined
  /** Spawn to the first 200 of the probe request, in ms. */
  readonly coldStartMs: number
  /** VmRSS one second after that first 200, in MB. */
  readonly idleRssMb: number
}

const profileArgs = (profile: boolean): { dir: string | undefined; args: Array<string> } => {
  if (!profile) return { dir: undefined, args: [] }
  const dir = tempDir("crm-bench-prof-")
  return { dir, args: ["--cpu-prof", `--cpu-prof-dir=${dir}`] }
}

const served = async (
  child: Child,
  base: string,
  profileDir: string | undefined,
  probe: string,
  headers: Record<string, string>
): Promise<Served> => {
  const coldStartMs = await firstOk(child, `${base}${probe}`, headers, 180_000)
  await sleep(1000)
  return { child, base, profileDir, coldStartMs, idleRssMb: procRss(child.proc.pid!).rssMb }
}

/**
 * Our server's bin: the checkout's, or (`BENCH_OURS`) a copy of examples/server (its `bin/` and a
 * built `dist/`), so that an A/B run measures two frozen builds, whatever rebuilds the checkout's
 * `dist/` meanwhile.
 */
export const OURS_BIN =
  process.env.BENCH_OURS === undefined ? "examples/server/bin/crm.js" : `${process.env.BENCH_OURS}/bin/crm.js`

/**
 * The node options `npm start` gives the server (package.json's `start`: `node <options> <bin>
 * serve`), for every build of ours, so that the bench runs it as shipped.
 */
const START_NODE_ARGS = ((): Array<string> => {
  const start: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.start
  const words = start.split(/\s+/)
  return words.slice(
    1,
    words.findIndex((word) => word.endsWith("crm.js"))
  )
})()

/**
 * Node options for `BENCH_OURS` only (`BENCH_OURS_NODE_ARGS`, space-separated), e.g. V8's heap
 * sizing in an A/B run; given after `npm start`'s, they win where they name the same option.
 */
const OURS_NODE_ARGS = (process.env.BENCH_OURS_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "")

/**
 * Our server as `npm start` runs it: the bin, with the storage in `storageEnv`. `bin` may name
 * another copy of the server's bin (with its `dist/` beside it) for an A/B run (`BENCH_AGAINST`).
 */
export const startOurs = async (
  label: string,
  storageEnv: Record<string, string>,
  profile = PROFILE,
  bin = OURS_BIN
) => {
  const port = await freePort()
  const prof = profileArgs(profile)
  const workers = WORKERS === undefined ? [] : ["--workers", String(WORKERS)]
  const child = startNode(
    `crm serve${WORKERS === undefined ? "" : ` --workers ${WORKERS}`} (${label})`,
    [...prof.args, ...START_NODE_ARGS, ...(bin === OURS_BIN ? OURS_NODE_ARGS : []), bin, "serve", ...workers],
    childEnv({
      PORT: String(port),
      HOST: "127.0.0.1",
      CRM_ADMIN_TOKEN: ADMIN_TOKEN,
      CRM_RATE_LIMIT: RATE_LIMIT,
      ...storageEnv
    }),
    OURS_CORES ?? (WORKERS === undefined ? SERVER_CORE : ALL_CORES)
  )
  const base = `http://127.0.0.1:${port}`
  const result = await served(child, base, prof.dir, "/api/v1/openapi.json", {})
  console.log(
    `  our server (${label}): first 200 of /api/v1/openapi.json ${result.coldStartMs.toFixed(0)} ms after spawn, ` +
      `idle RSS ${result.idleRssMb.toFixed(0)} MB, ${base}`
  )
  return result
}

let compiledBaseline: string | undefined

/**
 * The baseline as plain JavaScript (TypeScript's transpileModule strips the types), so that like our
 * built server it starts without a compiler on load. Written under test/bench/.cache (ignored by git),
 * where `pg` resolves from the repository's node_modules.
 */
const compileBaseline = async (): Promise<string> => {
  if (compiledBaseline !== undefined) return compiledBaseline
  const ts = (await import("typescript")).default
  const source = readFileSync(join(HERE, "baseline.ts"), "utf8")
  const output = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, esModuleInterop: true }
  }).outputText
  const dir = join(HERE, ".cache")
  mkdirSync(dir, { recursive: true })
  if (!existsSync(join(dir, ".gitignore"))) writeFileSync(join(dir, ".gitignore"), "*\n")
  const file = join(dir, `baseline-${process.pid}.mjs`)
  writeFileSync(file, output)
  onCleanup(`compiled baseline ${file}`, async () => rmSync(file, { force: true }))
  compiledBaseline = file
  return file
}

/** The bare server; `probe` is a route answering 200 (with `key`), to time its start. */
export const startBaseline = async (
  databaseUrl: string,
  probe: { readonly path: string; readonly key: string },
  profile = PROFILE
): Promise<Served> => {
  const file = await compileBaseline()
  const port = await freePort()
  const prof = profileArgs(profile)
  const child = startNode(
    "baseline",
    [...prof.args, file],
    childEnv({
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      POOL_SIZE,
      CRM_RATE_LIMIT: RATE_LIMIT
    })
  )
  const base = `http://127.0.0.1:${port}`
  const result = await served(child, base, prof.dir, probe.path, { authorization: `Bearer ${probe.key}` })
  console.log(
    `  baseline: first 200 of ${probe.path.replace(/[0-9a-f-]{36}/, "{id}")} ${result.coldStartMs.toFixed(0)} ms after spawn, ` +
      `idle RSS ${result.idleRssMb.toFixed(0)} MB, ${base}`
  )
  return result
}

// ---------------------------------------------------------------------------------------------
// HTTP: the admin API and single requests

export interface Reply {
  readonly status: number
  readonly text: string
  readonly body: any
  /** Sorted, without the ones about the connection and framing (content-length or chunked is not the API). */
  readonly headerNames: ReadonlyArray<string>
}

/** Keys and value types, in order (arrays by their first element): what the two servers must agree on. */
export const shapeOf = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.length === 0 ? "" : shapeOf(value[0])}]`
  if (value === null) return "null"
  if (typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}:${shapeOf(v)}`)
      .join(",")}}`
  return typeof value
}

export const call = async (
  base: string,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {}
): Promise<Reply> => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  const headerNames = [...response.headers.keys()]
    .filter((name) => !["date", "connection", "keep-alive", "transfer-encoding", "content-length"].includes(name))
    .sort()
  return { status: response.status, text, body: parsed, headerNames }
}

export const expectStatus = (reply: Reply, status: number, what: string): Reply => {
  if (reply.status !== status)
    throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 500)}`)
  return reply
}

export const inBatches = async <A>(n: number, width: number, f: (i: number) => Promise<A>): Promise<Array<A>> => {
  const out: Array<A> = []
  for (let start = 0; start < n; start += width) {
    const batch = await Promise.all(Array.from({ length: Math.min(width, n - start) }, (_, j) => f(start + j)))
    out.push(...batch)
  }
  return out
}

export const createOrganisation = async (base: string, name: string): Promise<string> =>
  expectStatus(
    await call(base, "POST", "/admin/v1/organisations", ADMIN_TOKEN, { name }),
    201,
    "POST /admin/v1/organisations"
  ).body.id as string

/** Keys with read and write, through our server's admin API. */
export const createKeys = (base: string, organisationId: string, n: number): Promise<Array<string>> =>
  inBatches(
    n,
    16,
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
// The bench database

export const withClient = async <A>(url: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url, application_name: "crm-bench" })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** A fresh `crm_bench_<random>` database, dropped WITH (FORCE) at clean-up; its URL. */
export const createDatabase = async (): Promise<{ name: string; url: string }> => {
  const name = `crm_bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`
  await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE "${name}"`))
  onCleanup(`database ${name}`, async () => {
    await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
    console.log(`dropped database ${name}`)
  })
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return { name, url: url.toString() }
}

export const randomTag = () => randomBytes(4).toString("hex")

// ---------------------------------------------------------------------------------------------
// Figures

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export const fixed = (x: number | undefined, digits: number) =>
  x === undefined || Number.isNaN(x) ? "-" : x.toFixed(digits)

/** A plain-text table (first `left` columns left-aligned) and the same as markdown. */
export const tables = (
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  left: number
): { text: string; markdown: string } => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((line) => line[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  const text = [line(header), ...rows.map(line)].join("\n")
  const markdown = [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i < left ? "---" : "---:")).join("|")}|`,
    ...rows.map((cells) => `| ${cells.join(" | ")} |`)
  ].join("\n")
  return { text, markdown }
}
