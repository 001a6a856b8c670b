/**
 * One process per PGlite data directory. PGlite is PostgreSQL in single-user mode inside the
 * process: two processes on one directory each believe they own its files, both acknowledge writes,
 * and what the first wrote is lost when the second's pages overwrite it. So a data directory is
 * locked while it is open, by a file beside it (`<dataDir>.lock`, beside rather than inside: a new
 * directory must be empty for PGlite's initdb and is renamed into place when copied from a
 * template), and a second opener is refused at once with the holder named.
 *
 * The lock file is made complete under a name of its own and hard-linked into place, which fails
 * when the lock exists: of any number of openers at once exactly one links it, and no reader ever
 * sees it half written. It holds the holder's pid, host, start time and command, and a token only
 * the holder knows, so that the holder removes its own lock and nobody else's.
 *
 * A lock whose holder is gone (killed, crashed) is taken over: on this host when its pid no longer
 * runs. Another host's pids cannot be checked from here, so such a lock is refused like a live one,
 * and the message says which file to remove. Taking over is done under a second file (the lock's
 * name with `.recovering`), created the same exclusive way, so that two openers finding the same
 * stale lock cannot both remove it: one of them could otherwise remove the lock the other had just
 * taken.
 *
 * Plain synchronous file-system calls (Node's `fs`, nothing native): no file-locking primitive
 * (flock) is reachable from Node without a native addon, and an exclusive link is atomic on every
 * local file system. `proper-lockfile` was considered: its locks go stale by age (a holder must
 * keep touching them) and do not say who holds them.
 */
import { randomUUID } from "node:crypto"
import { existsSync, linkSync, mkdirSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { basename, dirname, join, resolve } from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** Who holds a data directory, as its lock file says. */
export interface Holder {
  readonly pid: number
  readonly host: string
  /** When the holder took the lock (ISO 8601). */
  readonly since: string
  readonly command: string
}

/** The data directory is held by another process (or by this one, opened twice). */
export class DataDirLocked extends Data.TaggedError("DataDirLocked")<{
  readonly dataDir: string
  readonly lockFile: string
  /** Undefined when the lock file cannot be read. */
  readonly holder: Holder | undefined
  readonly message: string
}> {}

/** Acquiring failed for another reason than a holder (the directory beside it is not writable...). */
export class DataDirLockFailed extends Data.TaggedError("DataDirLockFailed")<{
  readonly lockFile: string
  readonly cause: unknown
  readonly message: string
}> {}

interface Stored extends Holder {
  readonly token: string
}

/**
 * The locks this process holds, by lock file, with their tokens: on `globalThis`, so that two
 * copies of this module in one process (two bundles) see each other's locks.
 */
const held: Map<string, string> = (() => {
  const key = Symbol.for("@crm/storage-pg/DataDirLock")
  const global = globalThis as { [key]?: Map<string, string> }
  const existing = global[key]
  if (existing !== undefined) return existing
  const locks = new Map<string, string>()
  global[key] = locks
  // A process that ends without closing its scopes (process.exit) still lets its directories go.
  process.on("exit", () => {
    for (const [file, token] of locks) removeIfOwn(file, token)
  })
  return locks
})()

/**
 * The lock file of `dataDir`: beside the directory's real path, so that two names of one directory
 * (a relative path, a symbolic link) share one lock.
 */
export const lockFileOf = (dataDir: string): string => {
  const absolute = resolve(dataDir)
  const real = existsSync(absolute) ? realpathSync(absolute) : join(realpathSync(dirname(absolute)), basename(absolute))
  return `${real}.lock`
}

const isStored = (value: unknown): value is Stored => {
  if (typeof value !== "object" || value === null) return false
  const fields = value as Record<string, unknown>
  return (
    typeof fields.pid === "number" &&
    Number.isInteger(fields.pid) &&
    fields.pid > 0 &&
    typeof fields.host === "string" &&
    typeof fields.since === "string" &&
    typeof fields.command === "string" &&
    typeof fields.token === "string"
  )
}

/** What a lock file holds: its holder, nothing (gone), or something else (unreadable). */
const read = (file: string): Stored | "missing" | "unreadable" => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "missing"
    throw error
  }
  try {
    const parsed: unknown = JSON.parse(text)
    return isStored(parsed) ? parsed : "unreadable"
  } catch {
    return "unreadable"
  }
}

const errorCode = (error: unknown): unknown =>
  typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined

/** Creates `file` with `text` unless it exists; true when this call created it. */
const createExclusive = (file: string, text: string): boolean => {
  const draft = `${file}.${process.pid}.${randomUUID()}`
  writeFileSync(draft, text, { flag: "wx" })
  try {
    linkSync(draft, file)
    return true
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false
    // A file system without hard links: an exclusive create, whose content a reader may for an
    // instant see empty (read as unreadable, and tried again).
    if (["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"].includes(String(errorCode(error)))) {
      try {
        writeFileSync(file, text, { flag: "wx" })
        return true
      } catch (inner) {
        if (errorCode(inner) === "EEXIST") return false
        throw inner
      }
    }
    throw error
  } finally {
    unlinkSync(draft)
  }
}

const removeIfOwn = (file: string, token: string): boolean => {
  held.delete(file)
  try {
    const current = read(file)
    if (typeof current === "string" || current.token !== token) return false
    unlinkSync(file)
    return true
  } catch {
    return false
  }
}

/** Whether the holder may still be running. Only pids of this host can be checked. */
const mayRun = (holder: Stored, file: string): boolean => {
  if (holder.host !== hostname()) return true
  // Our own pid: this process's lock, or one left by an earlier process that had the same pid
  // (a container restarted, whose process is pid 1 again).
  if (holder.pid === process.pid) return held.get(file) === holder.token
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return errorCode(error) !== "ESRCH"
  }
}

const describeHolder = (holder: Holder): string =>
  `pid ${holder.pid} on ${holder.host} since ${holder.since} (${holder.command})`

const WAY_OUT = "stop that process, or point DATABASE_URL at a PostgreSQL server, which several processes can share"

const refusal = (dataDir: string, file: string, holder: Stored | "unreadable"): DataDirLocked => {
  if (holder === "unreadable") {
    return new DataDirLocked({
      dataDir,
      lockFile: file,
      holder: undefined,
      message: `the PGlite data directory ${dataDir} is locked by ${file}, which cannot be read; if no process uses the directory, remove that file`
    })
  }
  const { token: _, ...named } = holder
  const mine = holder.pid === process.pid && holder.host === hostname()
  const message = mine
    ? `the PGlite data directory ${dataDir} is already open in this process (${describeHolder(holder)}): open it once and share it`
    : holder.host === hostname()
      ? `the PGlite data directory ${dataDir} is in use by another process: ${describeHolder(holder)}. PGlite is one process's database: ${WAY_OUT}`
      : `the PGlite data directory ${dataDir} is in use by a process on another host: ${describeHolder(holder)}, which cannot be checked from ${hostname()}. PGlite is one process's database: ${WAY_OUT}; if that process no longer runs, remove ${file}`
  return new DataDirLocked({ dataDir, lockFile: file, holder: named, message })
}

/** Sleeps this thread (the lock is taken synchronously; another opener needs microseconds). */
const pause = (milliseconds: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds)

/** How often an opener looks again at a lock that is being written, released or taken over. */
const ATTEMPTS = 100
const PAUSE_MS = 5

/** A lock held by this process: `release` removes it (once); `recovered` is the stale lock it replaced. */
export interface Held {
  readonly lockFile: string
  readonly recovered: Holder | undefined
  readonly release: () => void
}

export interface AcquireOptions {
  /**
   * Runs between judging a lock stale and taking it over: the moment another process may take it
   * over first. Lets tests play that process.
   */
  readonly beforeTakeOver?: () => void
}

/**
 * Takes the lock of `dataDir` or throws `DataDirLocked` naming its holder (any other failure of
 * the file system is thrown as it is). A stale lock of this host is taken over.
 */
export const acquireSync = (dataDir: string, options: AcquireOptions = {}): Held => {
  const absolute = resolve(dataDir)
  mkdirSync(dirname(absolute), { recursive: true })
  const file = lockFileOf(absolute)
  const me: Stored = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    command: [basename(process.execPath), ...process.argv.slice(1)].join(" ").slice(0, 300),
    token: randomUUID()
  }
  const text = `${JSON.stringify(me)}\n`
  let recovered: Holder | undefined
  let last: Stored | "unreadable" = "unreadable"
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createExclusive(file, text)) {
      held.set(file, me.token)
      let released = false
      return {
        lockFile: file,
        recovered,
        release: () => {
          if (released) return
          released = true
          removeIfOwn(file, me.token)
        }
      }
    }
    const holder = read(file)
    if (holder === "missing") continue
    last = holder
    if (holder === "unreadable") {
      pause(PAUSE_MS)
      continue
    }
    if (mayRun(holder, file)) break
    options.beforeTakeOver?.()
    const guard = `${file}.recovering`
    if (!createExclusive(guard, text)) {
      pause(PAUSE_MS)
      continue
    }
    try {
      // Under the guard nobody else removes the lock, and its dead holder will not: if it is still
      // the one judged stale, it is removed; if it is another (taken since), it is left alone.
      const again = read(file)
      if (typeof again !== "string" && again.token === holder.token) {
        unlinkSync(file)
        const { token: _, ...named } = holder
        recovered = named
      }
    } finally {
      unlinkSync(guard)
    }
  }
  if (last !== "unreadable" && !mayRun(last, file) && existsSync(`${file}.recovering`)) {
    throw new DataDirLocked({
      dataDir: absolute,
      lockFile: file,
      holder: undefined,
      message: `the PGlite data directory ${dataDir} has a stale lock ${file} that another process began to take over and did not finish; if no process uses the directory, remove ${file}.recovering`
    })
  }
  throw refusal(dataDir, file, last)
}

/**
 * The lock of `dataDir` for the enclosing scope: refused at once (`DataDirLocked`) when another
 * process holds it, released when the scope closes, and taken over, with a warning in the log,
 * from a process of this host that no longer runs.
 */
export const acquire = (dataDir: string): Effect.Effect<Held, DataDirLocked | DataDirLockFailed, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => acquireSync(dataDir),
      catch: (error) =>
        error instanceof DataDirLocked
          ? error
          : new DataDirLockFailed({
              lockFile: `${resolve(dataDir)}.lock`,
              cause: error,
              message: `cannot lock the PGlite data directory ${dataDir}: ${error instanceof Error ? error.message : String(error)}`
            })
    }).pipe(
      Effect.tap((lock) =>
        lock.recovered === undefined
          ? Effect.void
          : Effect.logWarning(
              `took over the lock ${lock.lockFile} of ${describeHolder(lock.recovered)}, which no longer runs (it did not stop cleanly)`
            )
      )
    ),
    (lock) => Effect.sync(lock.release)
  )
