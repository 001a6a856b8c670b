/**
 * The lock that keeps a PGlite data directory to one process: taken and given back, refused to a
 * second holder (in this process or another) with the holder named, exactly one winner among
 * processes racing for it, and a dead holder's lock taken over. Other processes are real ones
 * (`support/lockProbe.ts`, bundled).
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundled } from "../../../test/support/sources.js"
import { acquire, acquireSync, DataDirLocked, lockFileOf } from "../src/DataDirLock.js"

const root = mkdtempSync(join(tmpdir(), "crm-datadir-lock-"))
let count = 0
/** A data directory of the test's own (not created: the lock does not need it to exist). */
const newDataDir = () => join(root, `data-${++count}`)

/** The lock file as a holder writes it. */
const writeLock = (dataDir: string, holder: { pid: number; host?: string; token?: string }) =>
  writeFileSync(
    lockFileOf(dataDir),
    JSON.stringify({
      pid: holder.pid,
      host: holder.host ?? hostname(),
      since: "2026-01-02T03:04:05.000Z",
      command: "node crm.js serve",
      token: holder.token ?? "someone-else"
    })
  )

/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid

const refusal = (take: () => unknown): DataDirLocked => {
  try {
    take()
  } catch (error) {
    if (error instanceof DataDirLocked) return error
    throw error
  }
  throw new Error("the lock was taken")
}

interface Probe {
  readonly child: ChildProcessWithoutNullStreams
  readonly line: () => Promise<string>
  readonly exited: Promise<number | null>
}

let probeFile = ""

/** A lockProbe process on `dataDir`, once it is ready. */
const startProbe = async (dataDir: string): Promise<Probe> => {
  const child = spawn(process.execPath, [probeFile, dataDir])
  const exited = new Promise<number | null>((done) => child.on("close", done))
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const line = async () => {
    const next = await lines.next()
    if (next.done === true) throw new Error("the probe ended")
    return next.value
  }
  expect(await line()).toBe("ready")
  return { child, line, exited }
}

/** Tells every probe to try at once and returns their answers. */
const race = async (probes: ReadonlyArray<Probe>) => {
  for (const probe of probes) probe.child.stdin.write("go\n")
  return Promise.all(probes.map((probe) => probe.line()))
}

const stopAll = async (probes: ReadonlyArray<Probe>) => {
  for (const probe of probes) probe.child.stdin.end()
  expect(await Promise.all(probes.map((probe) => probe.exited))).toEqual(probes.map(() => 0))
}

describe("DataDirLock", () => {
  beforeAll(async () => {
    probeFile = (await bundled("packages/storage-pg", { lockProbe: "test/support/lockProbe.ts" })).lockProbe
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it("is a file beside the directory naming this process, removed when released; then it can be taken again", () => {
    const dataDir = newDataDir()
    const lock = acquireSync(dataDir)
    expect(lock.lockFile).toBe(`${dataDir}.lock`)
    expect(JSON.parse(readFileSync(lock.lockFile, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() })
    expect(existsSync(dataDir)).toBe(false)
    lock.release()
    expect(existsSync(lock.lockFile)).toBe(false)
    acquireSync(dataDir).release()
  })

  it("refuses a directory opened twice in this process, under any of its names", () => {
    const dataDir = newDataDir()
    mkdirSync(dataDir)
    const link = `${dataDir}-link`
    symlinkSync(dataDir, link)
    const lock = acquireSync(dataDir)
    try {
      for (const name of [dataDir, `${dataDir}/`, link]) {
        const refused = refusal(() => acquireSync(name))
        expect(refused.message).toContain("already open in this process")
        expect(refused.holder?.pid).toBe(process.pid)
      }
    } finally {
      lock.release()
    }
  })

  it("refuses a directory another process holds at once, naming it and the way out", async () => {
    const dataDir = newDataDir()
    const holder = await startProbe(dataDir)
    expect(await race([holder])).toEqual(["won"])
    const refused = refusal(() => acquireSync(dataDir))
    expect(refused.holder).toMatchObject({ pid: holder.child.pid, host: hostname() })
    expect(refused.message).toContain(`is in use by another process: pid ${holder.child.pid} on ${hostname()} since `)
    expect(refused.message).toContain(process.execPath.split("/").pop())
    expect(refused.message).toContain("stop that process, or point DATABASE_URL at a PostgreSQL server")
    // Given back when the holder ends.
    await stopAll([holder])
    expect(existsSync(lockFileOf(dataDir))).toBe(false)
    acquireSync(dataDir).release()
  })

  it("lets exactly one of several processes racing for a free directory take it", async () => {
    const dataDir = newDataDir()
    const probes = await Promise.all(Array.from({ length: 6 }, () => startProbe(dataDir)))
    const answers = await race(probes)
    expect(answers.filter((answer) => answer === "won")).toHaveLength(1)
    const winner = probes[answers.indexOf("won")]!
    for (const answer of answers.filter((answer) => answer !== "won")) {
      expect(JSON.parse(answer.slice("refused ".length))).toMatchObject({ pid: winner.child.pid })
    }
    await stopAll(probes)
    expect(existsSync(lockFileOf(dataDir))).toBe(false)
  })

  it("lets exactly one of several processes racing for a dead holder's lock take it over", async () => {
    const dataDir = newDataDir()
    const probes = await Promise.all(Array.from({ length: 6 }, () => startProbe(dataDir)))
    writeLock(dataDir, { pid: deadPid() })
    const answers = await race(probes)
    expect(answers.filter((answer) => answer === "won")).toHaveLength(1)
    const winner = probes[answers.indexOf("won")]!
    for (const answer of answers.filter((answer) => answer !== "won")) {
      expect(JSON.parse(answer.slice("refused ".length))).toMatchObject({ pid: winner.child.pid })
    }
    await stopAll(probes)
    expect(existsSync(lockFileOf(dataDir))).toBe(false)
  })

  it("leaves a stale lock alone that another process took over after it was judged stale", async () => {
    const dataDir = newDataDir()
    writeLock(dataDir, { pid: deadPid() })
    const other = await startProbe(dataDir)
    const refused = refusal(() =>
      acquireSync(dataDir, {
        // The other process finds the same stale lock and takes it over first.
        beforeTakeOver: () => {
          if (JSON.parse(readFileSync(lockFileOf(dataDir), "utf8")).pid === other.child.pid) return
          rmSync(lockFileOf(dataDir))
          writeLock(dataDir, { pid: other.child.pid!, token: "the-other-process" })
        }
      })
    )
    expect(refused.holder?.pid).toBe(other.child.pid)
    expect(JSON.parse(readFileSync(lockFileOf(dataDir), "utf8")).pid).toBe(other.child.pid)
    await stopAll([other])
  })

  it("takes over the lock of a process of this host that no longer runs, and says so in the log", async () => {
    const dataDir = newDataDir()
    const dead = deadPid()
    writeLock(dataDir, { pid: dead })
    const logged: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => logged.push(`${logLevel.label} ${String(message)}`))
    const lock = await Effect.runPromise(
      Effect.scoped(
        Effect.tap(acquire(dataDir), (lock) =>
          Effect.sync(() => expect(JSON.parse(readFileSync(lock.lockFile, "utf8")).pid).toBe(process.pid))
        )
      ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    )
    expect(lock.recovered).toMatchObject({ pid: dead, host: hostname(), command: "node crm.js serve" })
    expect(logged).toEqual([expect.stringMatching(new RegExp(`^WARN took over the lock .* of pid ${dead} on `))])
    // The scope closed: released.
    expect(existsSync(lockFileOf(dataDir))).toBe(false)
  })

  it("takes over a lock with this process's pid that this process does not hold (a restarted container's pid 1)", () => {
    const dataDir = newDataDir()
    writeLock(dataDir, { pid: process.pid, token: "an-earlier-process" })
    const lock = acquireSync(dataDir)
    expect(lock.recovered?.pid).toBe(process.pid)
    lock.release()
  })

  it("refuses another host's lock, whose process it cannot check, naming the file to remove", () => {
    const dataDir = newDataDir()
    writeLock(dataDir, { pid: deadPid(), host: "elsewhere.example" })
    const refused = refusal(() => acquireSync(dataDir))
    expect(refused.message).toContain("in use by a process on another host: pid ")
    expect(refused.message).toContain(`if that process no longer runs, remove ${lockFileOf(dataDir)}`)
  })

  it("refuses a lock file it cannot read, naming it", () => {
    const dataDir = newDataDir()
    writeFileSync(lockFileOf(dataDir), "not a lock")
    const refused = refusal(() => acquireSync(dataDir))
    expect(refused.holder).toBeUndefined()
    expect(refused.message).toContain(`locked by ${lockFileOf(dataDir)}, which cannot be read`)
  })

  it("refuses a stale lock whose take-over another process left unfinished, naming the file to remove", () => {
    const dataDir = newDataDir()
    writeLock(dataDir, { pid: deadPid() })
    writeFileSync(`${lockFileOf(dataDir)}.recovering`, "")
    const refused = refusal(() => acquireSync(dataDir))
    expect(refused.message).toContain(`remove ${lockFileOf(dataDir)}.recovering`)
  })

  it("leaves a lock that is no longer its own when released", () => {
    const dataDir = newDataDir()
    const lock = acquireSync(dataDir)
    writeLock(dataDir, { pid: deadPid(), token: "taken-over" })
    lock.release()
    expect(JSON.parse(readFileSync(lockFileOf(dataDir), "utf8")).token).toBe("taken-over")
  })
})
