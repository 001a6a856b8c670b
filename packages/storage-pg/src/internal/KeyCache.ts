/**
 * The process-local cache of `AccessRepository.findKeyByHash`, and the listener that keeps it
 * honest across processes.
 *
 * Every request authenticates, so the key and its organisation are read once per request unless
 * cached. Several server processes share one database, so a cache is allowed only with an
 * invalidation that reaches all of them: the writes in `AccessRepository` send
 * `pg_notify('crm_access', ...)` in the writing statement itself (delivered on COMMIT, to every
 * process, at no extra round trip), and each process LISTENs on that channel.
 *
 * Payloads on `crm_access` (no `:` inside a field; `<process>` is a random id per process):
 * - `key:<uuid>` and `key:<uuid>:<process>:<n>`: that key changed; its entries are dropped.
 * - `org:<uuid>` and `org:<uuid>:<process>:<n>`: that organisation changed (settings, plan,
 *   users...); its keys' entries are dropped.
 * - `ping:<process>:<session>:<sent at, ms>`: a heartbeat (see Trust).
 * - `ack:<process>:<n>:<by process>`: see At once.
 * - `bye:<process>`: that process stopped; no write waits for it any more.
 * - anything else, e.g. `NOTIFY crm_access, 'all'` from psql after a change made by hand:
 *   everything is dropped. It must not be empty: `@effect/sql-pg` drops empty notifications.
 *
 * Trust. A missed notification must never leave a revoked key usable, and a LISTEN can fail
 * silently: `@effect/sql-pg` 0.53's listen stream neither fails nor ends when its connection
 * dies (the listen client's errors are swallowed). So the cache answers only while the listener
 * has recently proved itself: each process NOTIFYs itself every `pingEveryMs`, and the echo of a
 * ping sent at `s` proves that every notification committed before `s` has been applied (a
 * listener receives notifications in commit order and applies them in order). The cache then
 * answers until `s + maxLagMs` and not after: with no echo it goes to the database on its own,
 * however late the heartbeat fiber runs. A listener silent for `restartAfterMs`, or whose stream
 * fails or ends, is dropped with everything cached and a new LISTEN is set up (retried with a
 * backoff); nothing is cached until its first echo. The listener starts with the first lookup (or
 * announced write): a process that never authenticates opens no LISTEN connection.
 *
 * At once. A NOTIFY reaches the other processes a little after COMMIT, and a client told "revoked"
 * may be quicker to ask another process. So a revocation or a settings change (not in an
 * enclosing transaction) returns only when every other process that may be caching has applied
 * it: the others acknowledge each such notification (`ack:`), and the writer waits for its own
 * echo, then for an acknowledgement from each process whose heartbeat it received in the
 * `maxLagMs` before that echo. (Commit order again: a process whose cache is trusted at the
 * write's commit sent a ping that committed within `maxLagMs` before it.) After `maxLagMs` it
 * returns anyway: a process that has not applied the change by then has not had an echo since,
 * and its cache has stopped answering.
 *
 * Reads racing invalidations. A lookup takes a ticket before its read; its answer is stored only
 * if no invalidation (and no loss of trust) happened in between, so a read that started before a
 * revocation committed cannot put the old row back after the notification was applied. A read
 * that ends before the notification arrives is stored, and then dropped by it.
 *
 * Belt and braces: an entry lives at most `maxAgeMs` (changes made outside the API without a
 * NOTIFY), and the cache holds at most `capacity` entries, least recently used evicted first.
 * Unknown keys are not cached: a flood of made-up keys would only evict real ones, and a new key
 * then works at once by construction.
 */
import type { Access, Settings } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"

export const CHANNEL = "crm_access"

export interface Authenticated {
  readonly key: Access.ApiKeyRecord
  readonly organisation: Settings.Organisation
}

export interface KeyCacheOptions {
  /** Entries kept at most; the least recently used goes first. */
  readonly capacity: number
  /** How long an entry may answer, whatever the notifications say. */
  readonly maxAgeMs: number
}

export const defaultCacheOptions: KeyCacheOptions = { capacity: 4096, maxAgeMs: 60_000 }

interface Entry {
  readonly value: Authenticated
  readonly storedAt: number
}

/** A ticket that no generation equals: the read started while the cache was not trusted. */
const UNTRUSTED = -1

export class KeyCache {
  readonly #options: KeyCacheOptions
  // Map iteration order is insertion order: re-inserting on a hit keeps the oldest use first.
  readonly #entries = new Map<string, Entry>()
  #generation = 0
  #trustedUntil: number

  /** `trusted`: whether the cache may answer before anyone vouches for it (one process, no listener). */
  constructor(options: KeyCacheOptions, trusted: boolean) {
    this.#options = options
    this.#trustedUntil = trusted ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY
  }

  get size(): number {
    return this.#entries.size
  }

  trusted(now: number): boolean {
    return now <= this.#trustedUntil
  }

  get(hash: string, now: number): Authenticated | undefined {
    if (!this.trusted(now)) return undefined
    const entry = this.#entries.get(hash)
    if (entry === undefined) return undefined
    this.#entries.delete(hash)
    if (now - entry.storedAt >= this.#options.maxAgeMs) return undefined
    this.#entries.set(hash, entry)
    return entry.value
  }

  /** Taken before reading the database; hand it back to `put` with what was read. */
  ticket(now: number): number {
    return this.trusted(now) ? this.#generation : UNTRUSTED
  }

  put(hash: string, value: Authenticated, ticket: number, now: number): void {
    if (ticket !== this.#generation || !this.trusted(now)) return
    this.#entries.delete(hash)
    this.#entries.set(hash, { value, storedAt: now })
    if (this.#entries.size > this.#options.capacity) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
  }

  forgetKey(id: string): void {
    this.#generation++
    for (const [hash, entry] of this.#entries) if (entry.value.key.id === id) this.#entries.delete(hash)
  }

  forgetOrganisation(id: string): void {
    this.#generation++
    for (const [hash, entry] of this.#entries) if (entry.value.organisation.id === id) this.#entries.delete(hash)
  }

  clear(): void {
    this.#generation++
    this.#entries.clear()
  }

  /** The listener vouches for every change committed up to `until - maxLag`: answer until `until`. */
  trustUntil(until: number): void {
    if (until > this.#trustedUntil) this.#trustedUntil = until
  }

  /** The listener is gone: forget everything and answer nothing until a new one vouches. */
  distrust(): void {
    this.#trustedUntil = Number.NEGATIVE_INFINITY
    this.clear()
  }
}

export interface ListenerOptions {
  /** How often the process NOTIFYs itself. */
  readonly pingEveryMs: number
  /** How long after a ping was sent its echo lets the cache answer; also the longest a write waits. */
  readonly maxLagMs: number
  /** Silence (no echo, or no first echo) after which the LISTEN is dropped and set up again. */
  readonly restartAfterMs: number
}

export const defaultListenerOptions: ListenerOptions = { pingEveryMs: 1000, maxLagMs: 3000, restartAfterMs: 10_000 }

export class ListenerLost extends Data.TaggedError("ListenerLost")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason
  }
}

export interface Listener {
  /**
   * Keeps the cache trusted while the LISTEN is alive; runs until interrupted (fork it into the
   * layer's scope). It starts listening on the first `want()`: a process that never
   * authenticates (a migration, a test of other ports) opens no LISTEN connection.
   */
  readonly run: Effect.Effect<never>
  /** Starts the listener if it has not started: cheap, call it on every use. */
  readonly want: () => void
  /**
   * Run before interrupting `run`. Tells the other processes that this one is gone, and waits (a
   * few seconds at most) until no LISTEN is being set up: a LISTEN connection interrupted while it
   * connects is never closed (effect 3.22's `RcRef.get` does not release a resource whose
   * acquisition was interrupted, and `PgClient.listen` holds its connection in one), and an open
   * connection keeps, for one thing, a template database from being copied.
   */
  readonly stop: Effect.Effect<void>
  /**
   * Runs a write whose statement notifies `<kind>:<id>` followed by the suffix it is given, and
   * when it did notify (`notified` of its result), returns once every other process has applied
   * it (see At once). Inside a transaction it does not wait: the notification leaves on COMMIT.
   */
  readonly announced: <A, E, R>(
    write: (suffix: string) => Effect.Effect<A, E, R>,
    notified: (result: A) => boolean
  ) => Effect.Effect<A, E, R>
}

interface Pending {
  /** Other processes' heartbeats received in `maxLagMs` before the write's own echo; unknown until then. */
  required: ReadonlyArray<string> | undefined
  readonly acknowledged: Set<string>
  readonly done: Deferred.Deferred<void>
}

// Timing here is wall-clock time, whatever Clock a caller runs under (a TestClock would otherwise
// stop the heartbeat, and with it the cache).
const liveClock = Clock.make()

/**
 * The listener behind a cache on a PostgreSQL server. `listen` is the notification stream
 * (`PgClient.listen(CHANNEL)`), `notify` sends a payload on the channel through the ordinary pool.
 */
export const makeListener = (
  cache: KeyCache,
  listen: Stream.Stream<string, SqlError>,
  notify: (payload: string) => Effect.Effect<unknown, SqlError>,
  options: ListenerOptions = defaultListenerOptions
): Listener => {
  const self = crypto.randomUUID()
  // Other processes by the time their last heartbeat arrived, and those that said goodbye.
  const peers = new Map<string, number>()
  const gone = new Map<string, number>()
  const pending = new Map<number, Pending>()
  let writes = 0
  // From a session's start to its first echo or its end: the LISTEN connection may be connecting.
  let starting = false
  let stopping = false
  const wanted = Deferred.unsafeMake<void>(FiberId.none)
  let isWanted = false
  const want = () => {
    if (isWanted) return
    isWanted = true
    Deferred.unsafeDone(wanted, Effect.void)
  }

  const settleIfComplete = (entry: Pending) => {
    if (entry.required?.every((peer) => entry.acknowledged.has(peer))) Deferred.unsafeDone(entry.done, Effect.void)
  }

  // Applied in order, synchronously: a heartbeat is processed only after every notification
  // committed before it.
  const receive = (id: string, payload: string): Effect.Effect<void> => {
    const [kind, a, b, c] = payload.split(":")
    const now = Date.now()
    switch (kind) {
      case "ping":
        if (a !== self) {
          if (!gone.has(a)) peers.set(a, now)
        } else if (b === id) {
          starting = false
          cache.trustUntil(Number(c) + options.maxLagMs)
        }
        return Effect.void
      case "bye":
        peers.delete(a)
        gone.set(a, now)
        return Effect.void
      case "ack":
        if (a === self) {
          const entry = pending.get(Number(b))
          if (entry !== undefined) {
            entry.acknowledged.add(c)
            settleIfComplete(entry)
          }
        }
        return Effect.void
      case "key":
      case "org": {
        if (kind === "key") cache.forgetKey(a)
        else cache.forgetOrganisation(a)
        if (b === undefined || c === undefined) return Effect.void
        if (b !== self) return Effect.fork(Effect.ignore(notify(`ack:${b}:${c}:${self}`)))
        const entry = pending.get(Number(c))
        if (entry !== undefined && entry.required === undefined) {
          entry.required = [...peers].filter(([, seen]) => now - seen <= options.maxLagMs).map(([peer]) => peer)
          settleIfComplete(entry)
        }
        return Effect.void
      }
      default:
        cache.clear()
        return Effect.void
    }
  }

  const session = Effect.suspend(() => {
    // Only this session's pings vouch: an echo of an older session's ping, received by a newer
    // LISTEN, says nothing about what the gap between them lost.
    const id = crypto.randomUUID()
    const startedAt = Date.now()
    let lastEcho = startedAt
    starting = true

    const consume = listen.pipe(
      Stream.runForEach((payload) =>
        Effect.suspend(() => {
          if (payload.startsWith(`ping:${self}:${id}:`)) lastEcho = Date.now()
          return receive(id, payload)
        })
      ),
      Effect.zipRight(Effect.fail(new ListenerLost({ reason: "the LISTEN stream ended" })))
    )

    const heartbeat = Effect.gen(function* () {
      while (true) {
        const now = Date.now()
        if (now - lastEcho > options.restartAfterMs) {
          return yield* new ListenerLost({ reason: `no echo of its own NOTIFY for ${now - lastEcho} ms` })
        }
        // Forked, so that a slow pool cannot hold back the check above; a failed ping is only a
        // missing echo.
        if (!stopping) yield* Effect.fork(Effect.ignore(notify(`ping:${self}:${id}:${now}`)))
        for (const [peer, seen] of peers) if (now - seen > 10 * options.maxLagMs) peers.delete(peer)
        for (const [peer, at] of gone) if (now - at > 10 * options.maxLagMs) gone.delete(peer)
        // Until the first echo, ping often for a while: the LISTEN may simply not be issued yet.
        yield* Effect.sleep(
          starting && now - startedAt < 2000 ? Math.min(25, options.pingEveryMs) : options.pingEveryMs
        )
      }
    })

    return Effect.all([consume, heartbeat], { concurrency: "unbounded", discard: true }).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          starting = false
          cache.distrust()
        })
      )
    )
  })

  const run = Effect.zipRight(
    Deferred.await(wanted),
    session.pipe(
      Effect.sandbox,
      Effect.tapError((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.void
          : Effect.logWarning("API key cache paused: the LISTEN on crm_access is not healthy; retrying", cause)
      ),
      Effect.retry(Schedule.union(Schedule.exponential("200 millis"), Schedule.spaced("5 seconds"))),
      Effect.orDie,
      Effect.forever
    )
  ).pipe(Effect.withClock(liveClock))

  const stop = Effect.gen(function* () {
    if (!isWanted) return
    const deadline = Date.now() + 3000
    while (starting && Date.now() < deadline) yield* Effect.sleep(10)
    stopping = true
    yield* notify(`bye:${self}`).pipe(Effect.timeoutOption(1000), Effect.ignore)
  }).pipe(Effect.withClock(liveClock))

  const announced = <A, E, R>(
    write: (suffix: string) => Effect.Effect<A, E, R>,
    notified: (result: A) => boolean
  ): Effect.Effect<A, E, R> =>
    Effect.gen(function* () {
      const transaction = yield* Effect.serviceOption(SqlClient.TransactionConnection)
      if (transaction._tag === "Some") return yield* write("")
      want()
      // Its own LISTEN must be up before the COMMIT for the write to see its echo: just started,
      // wait for it a little (without an echo, the write waits `maxLagMs` after its COMMIT).
      const deadline = Date.now() + options.pingEveryMs
      while (!cache.trusted(Date.now()) && Date.now() < deadline)
        yield* Effect.sleep(10).pipe(Effect.withClock(liveClock))
      const n = ++writes
      const entry: Pending = { required: undefined, acknowledged: new Set(), done: yield* Deferred.make<void>() }
      pending.set(n, entry)
      return yield* write(`:${self}:${n}`).pipe(
        Effect.tap((result) =>
          !notified(result)
            ? Effect.void
            : Deferred.await(entry.done).pipe(
                // The caller may be uninterruptible (an HTTP handler is): the wait must still time out.
                Effect.interruptible,
                Effect.timeoutOption(options.maxLagMs),
                Effect.withClock(liveClock)
              )
        ),
        Effect.ensuring(Effect.sync(() => pending.delete(n)))
      )
    })

  return { run, want, stop, announced }
}
