/**
 * A standby of the PostgreSQL server store (`Storage.ServerOptions.readUrl`): a hot standby fed by
 * streaming replication, which answers the reads of requests marked `Reads.fromStandby`.
 *
 * Read-your-writes. After a request of a key that may have written, the key's fence is set to the
 * primary's WAL position (`RateLimiter.wrote`, one statement after the request's last commit, so
 * the position is past every commit of the request). The take of the key's budget, which every
 * request sends to the primary first, reads the fence back (`readAfter`), on whichever process the
 * request lands. A marked read goes to the standby only once it has replayed that position: at
 * once when the position last seen replayed is past it, else after waiting for the standby
 * (`WAIT_MS` at most, asking again every `RECHECK_MS`), else to the primary.
 *
 * Routing. `@effect/sql-pg` and the fast path (`execute.ts`) each take a connection from a pool
 * with `pool.connect`; both are handed `RoutingPool`, which picks the pool when asked, from the
 * asking fiber's marks. A statement in a unit of work runs on the unit's connection, so a unit
 * stays on one server.
 *
 * Health. Every `POLL_MS` the primary's position and the standby's replayed one are read; the
 * standby's lag is how long ago the primary was last seen at or before the replayed position.
 * Unreachable ("down") or lagging more than `maxLagMs` ("behind"), it answers nothing until it is
 * back, and readiness says so. A read URL that names a server not in recovery (the primary itself,
 * through a read-only role, as the tests do) is current by definition.
 */
import { type Health, Reads } from "@crm/core"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Pg from "pg"

/** How often the standby's position and the primary's are read. */
export const POLL_MS = 250
/** The longest a read waits for the standby to replay its key's last write before going to the primary. */
export const WAIT_MS = 100
const RECHECK_MS = 5
export const DEFAULT_MAX_LAG_MS = 5000

/** A WAL position (`pg_lsn`, "16/B374D848") as a number that compares as positions do. */
export const lsn = (text: string): bigint => {
  const slash = text.indexOf("/")
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) | BigInt(`0x${text.slice(slash + 1)}`)
}

/**
 * The fence of the current request's key: the primary's position after its last write, as the
 * take of its budget read it; undefined before the take, or when the key has not written.
 */
export const readAfter: FiberRef.FiberRef<bigint | undefined> = FiberRef.unsafeMake<bigint | undefined>(undefined)

/** For a port whose reads may write (a row made on first use): on the primary, whoever asks. */
export const onPrimary = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(effect, Reads.fromStandby, false)

interface Sample {
  readonly at: number
  readonly position: bigint
}

export class Standby {
  private status: Health.StandbyStatus = { state: "down", lag_ms: null }
  private replayed = 0n
  /** Not in recovery: the read URL names a primary (a read-only alias of ours); always current. */
  private current = false
  private readonly samples: Array<Sample> = []
  private refreshing: Promise<void> | undefined
  private reachable = false

  constructor(
    readonly primary: Pg.Pool,
    readonly pool: Pg.Pool,
    private readonly maxLagMs: number
  ) {}

  get state(): Health.StandbyStatus {
    return this.status
  }

  /** Where a read with fence `after` goes: the standby when it has replayed it, at once or after a bounded wait. */
  choose(after: bigint | undefined): Pg.Pool | Promise<Pg.Pool> {
    if (this.status.state !== "ok") return this.primary
    if (this.caughtUp(after)) return this.pool
    return this.waitFor(after!)
  }

  /** The standby refused a connection: down until a poll reaches it again. */
  lost(): void {
    this.reachable = false
    this.status = { state: "down", lag_ms: null }
  }

  private caughtUp(after: bigint | undefined): boolean {
    return this.current || after === undefined || this.replayed >= after
  }

  private async waitFor(after: bigint): Promise<Pg.Pool> {
    const until = Date.now() + WAIT_MS
    for (;;) {
      await this.refresh()
      if (this.status.state !== "ok") return this.primary
      if (this.caughtUp(after)) return this.pool
      if (Date.now() + RECHECK_MS > until) return this.primary
      await new Promise((resolve) => setTimeout(resolve, RECHECK_MS))
    }
  }

  /** The standby's replayed position read again; one reading at a time, shared by all who wait. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.pool
      .query<{ recovering: boolean; replayed: string | null }>(
        "SELECT pg_is_in_recovery() AS recovering, pg_last_wal_replay_lsn()::text AS replayed"
      )
      .then(
        ({ rows: [row] }) => {
          this.reachable = true
          this.current = row?.recovering === false
          if (row?.replayed != null) this.replayed = lsn(row.replayed)
        },
        () => this.lost()
      )
      .finally(() => {
        this.refreshing = undefined
      })
    return this.refreshing
  }

  /** One reading of both servers, and the standby's state and lag from them. */
  readonly poll: Effect.Effect<void> = Effect.promise(async () => {
    const now = Date.now()
    try {
      const { rows } = await this.primary.query<{ position: string }>("SELECT pg_current_wal_lsn()::text AS position")
      this.samples.push({ at: now, position: lsn(rows[0]!.position) })
    } catch {
      // The primary's outage is the store's, answered by every request; the lag is then unknown.
    }
    // Past twice the longest lag allowed, one sample is enough: the oldest the lag is counted from.
    while (this.samples.length > 1 && this.samples[1]!.at < now - this.maxLagMs * 2) this.samples.shift()
    await this.refresh()
    if (this.reachable) this.status = this.judged(now)
  })

  private judged(now: number): Health.StandbyStatus {
    if (this.current) return { state: "ok", lag_ms: 0 }
    const newest = this.samples.at(-1)
    if (newest === undefined) return { state: "down", lag_ms: null }
    if (this.replayed >= newest.position) return { state: "ok", lag_ms: 0 }
    // The newest sample the standby has replayed: the primary was there then, the standby is now.
    let caughtUpAt = this.samples[0]!.at
    for (const sample of this.samples) if (sample.position <= this.replayed) caughtUpAt = sample.at
    const lag = now - caughtUpAt
    return { state: lag > this.maxLagMs ? "behind" : "ok", lag_ms: lag }
  }
}

/** The standby of the store, in the context its ports are built in; absent without one. */
export class StandbyTag extends Context.Tag("@crm/storage-pg/Standby")<StandbyTag, Standby>() {}

/** Reads the standby's state every `POLL_MS` for as long as the scope lives. */
export const watch = (standby: Standby) =>
  Effect.forkScoped(Effect.repeat(standby.poll, Schedule.spaced(Duration.millis(POLL_MS))))

/**
 * The pool `@effect/sql-pg` and the fast path are given when the store has a standby: each
 * `connect` asked by a fiber marked `Reads.fromStandby` goes where `Standby.choose` says, every
 * other to the primary. `@effect/sql-pg` also cancels a statement through `query`
 * (`pg_cancel_backend` of the connection's process): sent to the server that process runs on.
 */
export class RoutingPool {
  private readonly standbyProcesses = new Set<number>()

  constructor(readonly standby: Standby) {}

  get options() {
    return this.standby.primary.options
  }

  get ending() {
    return this.standby.primary.ending
  }

  connect(
    done: (error: Error | undefined, client: Pg.PoolClient | undefined, release: (error?: unknown) => void) => void
  ) {
    const fiber = Fiber.getCurrentFiber()
    const marked = Option.isSome(fiber) && fiber.value.getFiberRef(Reads.fromStandby)
    if (!marked) return this.standby.primary.connect(done as never)
    const target = this.standby.choose(fiber.value.getFiberRef(readAfter))
    const onStandby = (pool: Pg.Pool) =>
      pool === this.standby.pool
        ? pool.connect(((error: Error | undefined, client: Pg.PoolClient | undefined, release: () => void) => {
            // A standby lost since the last poll: this read, and the rest until it is back, go to the primary.
            if (error !== undefined || client === undefined) {
              this.standby.lost()
              return this.standby.primary.connect(done as never)
            }
            // Set by pg once connected; its types do not show it.
            const process = (client as Pg.PoolClient & { processID?: number }).processID
            if (process !== undefined && !this.standbyProcesses.has(process)) {
              this.standbyProcesses.add(process)
              client.once("end", () => this.standbyProcesses.delete(process))
            }
            done(undefined, client, release)
          }) as never)
        : pool.connect(done as never)
    if (target instanceof Promise) void target.then(onStandby)
    else onStandby(target)
  }

  query(text: string, done: () => void) {
    const process = /pg_cancel_backend\((\d+)\)/.exec(text)
    const pool =
      process !== null && this.standbyProcesses.has(Number(process[1])) ? this.standby.pool : this.standby.primary
    return pool.query(text, done)
  }
}
