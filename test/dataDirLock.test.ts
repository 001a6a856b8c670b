/**
 * One process per PGlite data directory, with real processes: `crm serve` (examples/server),
 * `crm migrate` and the stdio entry (examples/mcp-stdio), bundled from the sources. Two processes
 * on one directory used to both start and both acknowledge writes, and the first one's were lost
 * at the next start; a second opener is now refused at once, naming the first.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundled } from "./support/sources.js"

const root = join(import.meta.dirname, "..")
const ADMIN_TOKEN = "lock-test-admin-token"
// Each case starts PGlite in several processes, seconds each on a busy machine.
const SLOW = 180_000

interface Run {
  readonly child: ChildProcess
  readonly output: () => string
  /** The first match of `pattern` in what the process prints; undefined when it ended first. */
  readonly printed: (pattern: RegExp) => Promise<RegExpExecArray | undefined>
  /** The server's address once it listens; undefined when it ended first. */
  readonly listening: Promise<string | undefined>
  readonly exited: Promise<number | null>
}

let cli = ""
let stdio = ""
const dataDirs = mkdtempSync(join(tmpdir(), "crm-lock-processes-"))
let count = 0
const newDataDir = () => join(dataDirs, `data-${++count}`)

const start = (program: string, args: ReadonlyArray<string>, env: Record<string, string>): Run => {
  const child = spawn(program, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", CRM_LOG_FORMAT: "json", HOST: "127.0.0.1", PORT: "0", ...env }
  })
  let output = ""
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString()
  }
  child.stdout?.on("data", onOutput)
  child.stderr?.on("data", onOutput)
  const exited = new Promise<number | null>((done) => child.on("close", done))
  const printed = (pattern: RegExp) =>
    new Promise<RegExpExecArray | undefined>((done) => {
      const look = () => {
        const found = pattern.exec(output)
        if (found !== null) done(found)
      }
      look()
      child.stdout?.on("data", look)
      child.stderr?.on("data", look)
      void exited.then(() => done(undefined))
    })
  // Where it serves once its store is open: it listens before (`Opening`), a refused one too.
  const listening = Promise.all([printed(/Listening on (http:\/\/[^\s"]+)/), printed(/ready: the store is open/)]).then(
    ([found, ready]) => (ready === undefined ? undefined : found?.[1])
  )
  return { child, output: () => output, printed, listening, exited }
}

/** `crm <args>` as `bin/crm.js` runs it. */
const crm = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const entry = `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)}); main(process.argv.slice(1))`
  return start(process.execPath, ["--input-type=module", "-e", entry, "--", ...args], {
    CRM_ADMIN_TOKEN: ADMIN_TOKEN,
    ...env
  })
}

/** A server on `dataDir` that is listening. */
const serving = async (dataDir: string) => {
  const server = crm(["serve"], { CRM_DATA_DIR: dataDir })
  const url = await server.listening
  expect(url, server.output()).toBeDefined()
  return { ...server, url: url! }
}

const stop = async (run: Run) => {
  run.child.kill("SIGTERM")
  expect(await run.exited, run.output()).toBe(0)
}

/** The bootstrap key a first start on an empty store logs (after it listens). */
const bootstrapKey = async (run: Run) => {
  const key = (await run.printed(/the key is shown this once: (mck_[A-Za-z0-9]+)/))?.[1]
  expect(key, run.output()).toBeDefined()
  return key!
}

const api = (url: string, key: string, path: string, body?: unknown) =>
  fetch(`${url}/api/v1${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** The names of the contacts a server has. */
const contactNames = async (url: string, key: string) => {
  const page = (await (await api(url, key, "/contacts")).json()) as { data: Array<{ first_name: string }> }
  return page.data.map((contact) => contact.first_name).sort()
}

/** What a refused opener says, whichever program it is. */
const expectRefusedFor = (refused: string, dataDir: string, holder: Run) => {
  expect(refused).toContain(
    `the PGlite data directory ${dataDir} is in use by another process: pid ${holder.child.pid} on `
  )
  expect(refused).toContain("stop that process, or point DATABASE_URL at a PostgreSQL server")
}

describe("one process per PGlite data directory", () => {
  beforeAll(async () => {
    const [server, mcp] = await Promise.all([
      bundled("examples/server", { cli: "src/cli.ts", Commands: "src/Commands.ts" }),
      bundled("examples/mcp-stdio", { main: "src/main.ts" })
    ])
    cli = server.cli
    stdio = mcp.main
    // The template a new data directory is copied from, beside the bundle as `npm run build`
    // leaves it (there, `crm migrate` makes it too).
    const template = crm(["migrate"], { CRM_DATA_DIR: join(dirname(cli), "pglite-template") })
    expect(await template.exited, template.output()).toBe(0)
  })
  afterAll(() => rmSync(dataDirs, { recursive: true, force: true }))

  // One server's life, so that a run starts as few processes as the cases need: each start of a
  // bundled server on PGlite costs seconds on a loaded machine.
  it(
    "refuses a second server, crm migrate and the stdio entry at once, naming the first, which keeps what it acknowledged; a killed server's lock is taken over",
    async () => {
      const dataDir = newDataDir()
      const first = await serving(dataDir)
      const key = await bootstrapKey(first)
      for (const name of ["Ada", "Grace", "Edsger"]) {
        expect((await api(first.url, key, "/contacts", { first_name: name })).status).toBe(201)
      }

      const second = crm(["serve"], { CRM_DATA_DIR: dataDir })
      expect(await second.exited).toBe(1)
      expect(await second.listening).toBeUndefined()
      expectRefusedFor(second.output(), dataDir, first)

      const migrate = crm(["migrate"], { CRM_DATA_DIR: dataDir })
      expect(await migrate.exited).toBe(1)
      expectRefusedFor(migrate.output(), dataDir, first)

      const assistant = start(process.execPath, [stdio], { CRM_API_KEY: "mck_any", CRM_DATA_DIR: dataDir })
      expect(await assistant.exited).toBe(1)
      expectRefusedFor(assistant.output(), dataDir, first)
      expect(assistant.output()).toContain("crm-mcp: ")

      // A run on the memory store opens no directory, so takes no lock.
      const memory = crm(["migrate"], { CRM_DATA_DIR: dataDir, CRM_STORAGE: "memory" })
      expect(await memory.exited, memory.output()).toBe(0)

      expect(await contactNames(first.url, key)).toEqual(["Ada", "Edsger", "Grace"])
      first.child.kill("SIGKILL")
      await first.exited
      expect(existsSync(`${dataDir}.lock`)).toBe(true)

      // The killed server's lock is taken over, and the next server has everything it acknowledged.
      const next = await serving(dataDir)
      expect(next.output()).toMatch(
        new RegExp(`took over the lock ${dataDir}\\.lock of pid ${first.child.pid} on .*, which no longer runs`)
      )
      expect(await contactNames(next.url, key)).toEqual(["Ada", "Edsger", "Grace"])
      await stop(next)
      expect(existsSync(`${dataDir}.lock`)).toBe(false)
    },
    SLOW
  )

  it(
    "lets one of two servers starting at once on a new directory copy the template and serve; the other is refused",
    async () => {
      const dataDir = newDataDir()
      const both = [crm(["serve"], { CRM_DATA_DIR: dataDir }), crm(["serve"], { CRM_DATA_DIR: dataDir })]
      const urls = await Promise.all(both.map((run) => run.listening))
      const winner = both[urls.findIndex((url) => url !== undefined)]!
      const loser = both[urls.indexOf(undefined)]!
      expect(
        urls.filter((url) => url !== undefined),
        both.map((run) => run.output()).join("\n")
      ).toHaveLength(1)
      expect(await loser.exited).toBe(1)
      expectRefusedFor(loser.output(), dataDir, winner)
      // The winner's store is the template's copy, migrated and whole.
      expect((await fetch(`${urls.find((url) => url !== undefined)}/readyz`)).status).toBe(200)
      expect((await api(urls.find((url) => url !== undefined)!, await bootstrapKey(winner), "/me")).status).toBe(200)
      await stop(winner)
    },
    SLOW
  )
})
