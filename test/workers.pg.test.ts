/**
 * `crm serve --workers N` as real processes (examples/server/src/Workers.ts), bundled from the
 * sources: a supervisor and its workers on one PostgreSQL database, what each worker's log lines
 * say, the shutdown on SIGTERM, and the refusals (a store several processes cannot share, a count
 * that is not one). Which process answered is read from the request log, where every line of a
 * worker names it, and from /proc, where each worker is a child of the supervisor.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import http from "node:http"
import { dirname, join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServerDatabase, describeOnServer } from "./support/pgServer.js"
import { bundled } from "./support/sources.js"

const root = join(import.meta.dirname, "..")
const ADMIN_TOKEN = "workers-test-admin-token"
// A supervisor starts a bundled server per worker: seconds each on a busy machine.
const SLOW = 120_000

let entry = ""
beforeAll(async () => {
  const { cli } = await bundled("examples/server", { cli: "src/cli.ts", Commands: "src/Commands.ts" })
  // A file of its own, as `bin/crm.js` is: the supervisor starts its workers by running it again.
  entry = join(dirname(cli), "crm.mjs")
  writeFileSync(entry, 'import { main } from "./cli.js"\nmain(process.argv.slice(2))\n')
})

interface Run {
  readonly child: ChildProcess
  readonly output: () => string
  /** Every JSON line printed so far. */
  readonly lines: () => ReadonlyArray<Record<string, unknown>>
  /** Resolves once `count` lines match `test`; false when the process ended first. */
  readonly printed: (test: (line: Record<string, unknown>) => boolean, count?: number) => Promise<boolean>
  readonly exited: Promise<number | null>
}

const crm = (args: ReadonlyArray<string>, env: Record<string, string>): Run => {
  const child = spawn(process.execPath, [entry, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", CRM_LOG_FORMAT: "json", HOST: "127.0.0.1", PORT: "0", ...env }
  })
  let output = ""
  const listeners = new Set<() => void>()
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout.on("data", onOutput)
  child.stderr.on("data", onOutput)
  const exited = new Promise<number | null>((done) => child.on("close", done))
  const lines = () =>
    output.split("\n").flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>]
      } catch {
        return []
      }
    })
  const printed = (test: (line: Record<string, unknown>) => boolean, count = 1) =>
    new Promise<boolean>((done) => {
      const look = () => {
        if (lines().filter(test).length < count) return
        listeners.delete(look)
        done(true)
      }
      listeners.add(look)
      look()
      void exited.then(() => done(lines().filter(test).length >= count))
    })
  return { child, output: () => output, lines, printed, exited }
}

const message = (pattern: RegExp) => (line: Record<string, unknown>) => pattern.test(String(line.msg))

/** The parent of `pid` (from /proc), or undefined once it is gone. */
const parentOf = (pid: number): number | undefined => {
  if (!existsSync(`/proc/${pid}/stat`)) return undefined
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
}

/** A GET on a connection of its own: the supervisor hands each new connection to the next worker. */
const get = (url: string, path: string, key?: string) =>
  new Promise<{ readonly status: number; readonly body: string }>((done, fail) => {
    const request = http.get(
      `${url}${path}`,
      { agent: false, headers: key === undefined ? {} : { authorization: `Bearer ${key}` } },
      (response) => {
        let body = ""
        response.on("data", (chunk: Buffer) => {
          body += chunk.toString()
        })
        response.on("end", () => done({ status: response.statusCode ?? 0, body }))
      }
    )
    request.on("error", fail)
  })

describeOnServer("crm serve --workers 2 on PostgreSQL", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let server: Run
  let url = ""
  let pids: Array<number> = []
  beforeAll(async () => {
    database = await createServerDatabase()
    server = crm(["serve", "--workers", "2"], { DATABASE_URL: database.url, CRM_ADMIN_TOKEN: ADMIN_TOKEN })
    expect(await server.printed(message(/^ready: the store is open$/), 2), server.output()).toBe(true)
    url = String(server.lines().find(message(/^Listening on /))?.msg).slice("Listening on ".length)
    pids = server
      .lines()
      .filter(message(/^worker \d started$/))
      .map((line) => Number(line.worker_pid))
  }, SLOW)
  afterAll(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill("SIGKILL")
      await server.exited
    }
    await database?.drop()
  })

  it("serves from two processes, children of the supervisor, each named in its log lines; one of them makes the first organisation", async () => {
    expect(new Set(pids).size).toBe(2)
    for (const pid of pids) expect(parentOf(pid)).toBe(server.child.pid)
    for (const worker of [1, 2]) {
      expect(server.lines().filter((line) => line.worker === worker && message(/^Listening on /)(line))).toHaveLength(1)
    }
    expect(await server.printed(message(/the key is shown this once/))).toBe(true)
    expect(server.lines().filter(message(/the key is shown this once/))).toEqual([
      expect.objectContaining({ worker: 1 })
    ])

    for (let i = 0; i < 8; i++) expect((await get(url, "/healthz")).status).toBe(200)
    const answered = () => server.lines().filter((line) => line.msg === "request" && line.route === "/healthz")
    expect(await server.printed((line) => line.msg === "request" && line.route === "/healthz", 8)).toBe(true)
    expect(new Set(answered().map((line) => line.worker))).toEqual(new Set([1, 2]))
  })

  it("replaces a worker that dies, after a pause, under the same number", async () => {
    const [first] = pids
    process.kill(first!, "SIGKILL")
    expect(await server.printed(message(/^worker 1 exited on SIGKILL unexpectedly; starting another in 1s$/))).toBe(
      true
    )
    expect(await server.printed(message(/^worker 1 started$/), 2)).toBe(true)
    expect(await server.printed(message(/^ready: the store is open$/), 3)).toBe(true)
    pids = [
      Number(
        server
          .lines()
          .filter(message(/^worker 1 started$/))
          .at(-1)?.worker_pid
      ),
      pids[1]!
    ]
    expect(pids[0]).not.toBe(first)
    expect(parentOf(pids[0]!)).toBe(server.child.pid)
    for (let i = 0; i < 4; i++) expect((await get(url, "/healthz")).status).toBe(200)
  })

  it(
    "a second supervisor whose workers cannot listen (the port is taken) exits 1, having stopped them",
    async () => {
      const port = new URL(url).port
      const second = crm(["serve", "--workers", "2"], { DATABASE_URL: database!.url, PORT: port })
      expect(await second.exited, second.output()).toBe(1)
      expect(second.output()).toContain("EADDRINUSE")
      expect(second.output()).toContain("the workers could not start")
      expect(second.lines().filter(message(/^worker \d started$/))).toHaveLength(2)
    },
    SLOW
  )

  it(
    "on SIGTERM, every worker finishes the request it is running and shuts down, and the supervisor exits 0",
    async () => {
      const admin = (path: string, body: unknown) =>
        fetch(`${url}/admin/v1${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify(body)
        }).then((response) => response.json() as Promise<Record<string, string>>)
      const organisation = await admin("/organisations", { name: "Shutdown" })
      const { key } = await admin(`/organisations/${organisation.id}/keys`, { scopes: ["read"] })

      // A request held inside its statement by a lock the test holds, and let go after the signal.
      const locker = new pg.Client({ connectionString: database!.url })
      await locker.connect()
      try {
        await locker.query("BEGIN")
        await locker.query("LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE")
        const held = get(url, "/api/v1/contacts", key).catch((error: Error) => ({ status: 0, body: error.message }))
        const waiting = () =>
          locker.query("SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'contacts'::regclass AND NOT granted")
        while ((await waiting()).rows[0].n === 0) await new Promise((resolve) => setTimeout(resolve, 50))
        server.child.kill("SIGTERM")
        expect(await server.printed(message(/^stopping 2 workers$/))).toBe(true)
        await locker.query("COMMIT")
        // Answered, not cut off: the listener drains the requests under way before it closes.
        expect((await held).status).toBe(200)
      } finally {
        await locker.end()
      }
      expect(await server.exited, server.output()).toBe(0)
      const lines = server.lines()
      // Its worker answered it before it stopped.
      const answeredAt = lines.findIndex((line) => line.msg === "request" && line.route === "/api/v1/contacts")
      expect(answeredAt, server.output()).toBeGreaterThan(-1)
      expect(lines[answeredAt]!.status).toBe(200)
      const worker = lines[answeredAt]!.worker
      expect(answeredAt).toBeLessThan(lines.findIndex((line) => line.worker === worker && line.msg === "stopped"))
      for (const index of [1, 2]) {
        expect(lines.filter((line) => line.worker === index && line.msg === "stopped")).toHaveLength(1)
        expect(lines.filter(message(new RegExp(`^worker ${index} stopped$`)))).toHaveLength(1)
      }
      for (const pid of pids) expect(parentOf(pid)).toBeUndefined()
    },
    SLOW
  )
})

describe("crm serve --workers: what it refuses, with exit code 1", () => {
  const refused = async (args: ReadonlyArray<string>, env: Record<string, string>, says: string) => {
    const run = crm(args, env)
    expect(await run.exited, run.output()).toBe(1)
    expect(run.output()).toContain(says)
    // Nothing was started: no worker, no listening socket.
    expect(run.output()).not.toContain("Listening on")
  }

  it("a count that is not auto or a whole number from 1 to 1024, as an option or in CRM_WORKERS", async () => {
    await Promise.all([
      refused(["serve", "--workers", "0"], {}, 'workers must be auto or a whole number from 1 to 1024, got "0"'),
      refused(["serve", "--workers", "two"], {}, 'got "two"'),
      refused(["serve"], { CRM_WORKERS: "-1" }, "CRM_WORKERS: ")
    ])
  })

  it("a store several processes cannot share: PGlite, memory", async () => {
    await Promise.all([
      refused(["serve", "--workers", "2"], { CRM_DATA_DIR: "/nonexistent/crm" }, "2 workers cannot share PGlite"),
      refused(["serve"], { CRM_WORKERS: "2", CRM_STORAGE: "memory" }, "2 workers cannot share the memory store")
    ])
  })

  it("a database it cannot reach: the error, once, before any worker starts", async () => {
    const run = crm(["serve", "--workers", "2"], { DATABASE_URL: "postgres://crm@127.0.0.1:1/crm" })
    expect(await run.exited, run.output()).toBe(1)
    expect(run.lines().filter((line) => line.level === "error")).toHaveLength(1)
    expect(run.output()).toContain("ECONNREFUSED")
    expect(run.output()).not.toContain("worker 1 started")
  })
})
