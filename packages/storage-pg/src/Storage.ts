/** Every storage port of the kernel over one `SqlClient`, and the two ways to get that client. */
import { type Access, Errors, type Kernel } from "@crm/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Pg from "pg"
import * as EventLog from "./EventLog.js"
import { toStorageError } from "./internal/errors.js"
import { serverPath, useFastPath } from "./internal/execute.js"
import { PreparingClient } from "./internal/preparedStatements.js"
import { ServerPool } from "./internal/serverPool.js"
import { DEFAULT_MAX_LAG_MS, RoutingPool, Standby, StandbyTag, watch } from "./internal/standby.js"
import { storeTypes } from "./internal/types.js"
import { migrate } from "./Migrations.js"
import * as PgliteClient from "./PgliteClient.js"
import * as PortModules from "./PortModules.js"
import * as RateLimiter from "./RateLimiter.js"
import * as StoreProbe from "./StoreProbe.js"
import * as TransferStore from "./TransferStore.js"

export type Ports = Kernel.StoragePorts

export interface LayerOptions extends EventLog.EventLogOptions {}

/** The ports alone, on whatever `SqlClient` is provided; the schema must already be migrated. */
export const layerWith = (options: LayerOptions = {}): Layer.Layer<Ports, never, SqlClient.SqlClient> =>
  Layer.mergeAll(EventLog.layer(options), StoreProbe.layer, TransferStore.layer, PortModules.layer)

export const layer: Layer.Layer<Ports, never, SqlClient.SqlClient> = layerWith()

/**
 * Migrates on the given client before the ports are built, and hands on the client itself too.
 * `overrides` replace ports of `layerWith` that a kind of store serves otherwise.
 */
const onClient = <E>(
  client: Layer.Layer<SqlClient.SqlClient, E>,
  options: LayerOptions,
  overrides?: Layer.Layer<Access.RateLimiter, SqlError, SqlClient.SqlClient>
): Layer.Layer<Ports | SqlClient.SqlClient, Errors.StorageError> => {
  const migrated = Layer.effectDiscard(migrate).pipe(Layer.provideMerge(client))
  const ports = overrides === undefined ? layerWith(options) : Layer.merge(layerWith(options), overrides)
  return ports.pipe(
    Layer.provideMerge(migrated),
    Layer.mapError((error) => (isStorageError(error) ? error : toStorageError("opening the database")(error)))
  )
}

const isStorageError = (error: unknown): error is Errors.StorageError => error instanceof Errors.StorageError

/**
 * How the PostgreSQL server store sends its statements. "fast": the hottest statements and every
 * unit of work skip `@effect/sql`'s per-statement work, a unit's `BEGIN` and its event append ride
 * with its first statement and its `COMMIT`, and statements are prepared once per connection; this
 * reaches into `pg`'s undocumented state (`internal/execute.ts` and `internal/preparedStatements.ts`
 * say how, why, and what they wait for). "plain": every statement through `@effect/sql-pg` over a
 * stock `pg` pool, nothing of `pg`'s or Effect's internals touched, more CPU and round trips per
 * request. Both pass the same storage contract.
 */
export type Statements = "fast" | "plain"

/**
 * What sits between the store and PostgreSQL. "none" (the default): the store's connections are
 * the server's sessions. "transaction": a pooler that hands each transaction whichever server
 * connection is free (PgBouncer's `pool_mode = transaction`), so nothing may outlive a
 * transaction on a connection: statements go unnamed (a name prepared on one server connection
 * is unknown, or already taken, on the next), and the statement timeout is not sent when
 * connecting (PgBouncer refuses startup parameters it does not know): set it on the database role
 * instead (`ALTER ROLE ... SET statement_timeout = '30s'`), which the pooler's own connections
 * take. The store holds nothing else across transactions: its advisory locks are transaction
 * locks, its `SET`s are `SET LOCAL` or `SET TRANSACTION`, and it does not LISTEN.
 */
export type Pooler = "none" | "transaction"

export interface ServerOptions extends LayerOptions {
  readonly url: Redacted.Redacted | string
  /** See `Statements` (default "fast"). */
  readonly statements?: Statements
  /** See `Pooler` (default "none"). */
  readonly pooler?: Pooler
  /** Connections the pool opens at most (default 10), and as many again to a standby. */
  readonly maxConnections?: number
  /**
   * The longest a statement may run, waits for a lock included, before the server cancels it and
   * the request answers 503 (default 30 s; 0: no limit). Set per connection, so it also bounds
   * the housekeeping's purges and the migrations; not sent behind a pooler (see `Pooler`).
   */
  readonly statementTimeoutMs?: number
  /**
   * A hot standby of the database (streaming replication), for the reads of requests marked
   * `Reads.fromStandby`: the REST API's GETs. A key's reads never see less than its own writes
   * (they wait up to 100 ms for the standby to replay them, then go to the primary); while the
   * standby is unreachable or lags more than `standbyMaxLagMs`, the primary answers every read and
   * readiness names the standby's state. `internal/standby.ts` says how.
   */
  readonly readUrl?: Redacted.Redacted | string
  /** How far behind the primary the standby may be and still answer reads (default 5 s). */
  readonly standbyMaxLagMs?: number
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000

export const DEFAULT_POOL_SIZE = 10

export const DEFAULT_STANDBY_MAX_LAG_MS = DEFAULT_MAX_LAG_MS

/** How long a statement waits for a connection, new or pooled, before the store counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5000

/** Idle time on a connection before TCP keep-alive probes its peer. */
const KEEP_ALIVE_DELAY_MS = 10_000

/**
 * A pool, as `@effect/sql-pg` would make it, with clients that prepare their statements on the
 * fast path (`internal/preparedStatements.ts`).
 */
const pool = (options: ServerOptions, url: Redacted.Redacted | string, statements: Statements, pooler: Pooler) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new Pg.Pool({
        connectionString: Redacted.value(typeof url === "string" ? Redacted.make(url) : url),
        application_name: "crm",
        max: options.maxConnections ?? DEFAULT_POOL_SIZE,
        // pg waits forever by default, for a connection to a server that drops every packet as for
        // a turn at a pool whose connections all hang: a request should get its 503 instead.
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        // A statement or a connection that goes silent must end too: the server cancels a
        // statement past the timeout, and TCP keep-alive finds a connection whose peer is gone
        // (a failover, a cut network) where the socket would otherwise wait for ever.
        ...(pooler === "none" ? { statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS } : {}),
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
        // The store's reading of each type (`internal/types.ts`), which PGlite is given too.
        types: storeTypes,
        ...(statements === "fast" && pooler === "none" ? { Client: PreparingClient } : {})
      })
      // An idle client's error (the server restarted) is the pool's to handle: it drops the client.
      pool.on("error", () => {})
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(1000))
  )

/** Connected once before use, so that a wrong URL fails the start. */
const reached = (pool: Pg.Pool) =>
  Effect.tryPromise({
    try: () => pool.query("SELECT 1"),
    catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
  })

/**
 * Behind a pooler the statement timeout is not sent (see `Pooler`): the role's applies, and an
 * operator who has not set one is told at start, since a statement could then run for ever.
 */
const warnWithoutTimeout = (opened: Pg.Pool) =>
  Effect.tryPromise({
    try: () => opened.query<{ statement_timeout: string }>("SHOW statement_timeout"),
    catch: (cause) => new SqlError({ cause, message: "reading statement_timeout" })
  }).pipe(
    Effect.flatMap(({ rows }) =>
      rows[0]?.statement_timeout === "0"
        ? Effect.logWarning(
            "behind the pooler no statement timeout is sent, and the database role has none: statements may run without limit; set one with ALTER ROLE ... SET statement_timeout = '30s'"
          )
        : Effect.void
    )
  )

/** A PostgreSQL server: a pool, the migrations, the ports, on the statement path asked for. */
export const layerServer = (options: ServerOptions): Layer.Layer<Ports | SqlClient.SqlClient, Errors.StorageError> =>
  onClient(
    Layer.scopedContext(
      Effect.gen(function* () {
        const statements = options.statements ?? "fast"
        const pooler = options.pooler ?? "none"
        const opened = yield* pool(options, options.url, statements, pooler)
        yield* reached(opened)
        if (pooler === "transaction" && (options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS) > 0) {
          yield* warnWithoutTimeout(opened)
        }
        // A standby that cannot be reached at start is not the start's failure: the primary answers.
        const standby =
          options.readUrl === undefined
            ? undefined
            : new Standby(
                opened,
                yield* pool(options, options.readUrl, statements, pooler),
                options.standbyMaxLagMs ?? DEFAULT_STANDBY_MAX_LAG_MS
              )
        const routed = standby === undefined ? opened : (new RoutingPool(standby) as unknown as Pg.Pool)
        const client = yield* PgClient.fromPool({ acquire: Effect.succeed(routed), applicationName: "crm" })
        if (statements === "fast") useFastPath(client, serverPath(routed))
        if (standby !== undefined) yield* watch(standby)
        // The pool rides along for the gauges (`StoreGauges`), whichever the path.
        const context = Context.make(PgClient.PgClient, client).pipe(
          Context.add(SqlClient.SqlClient, client),
          Context.add(ServerPool, opened)
        )
        return standby === undefined ? context : Context.add(context, StandbyTag, standby)
      })
    ).pipe(Layer.provide(Reactivity.layer)),
    options
  )

export interface PgliteOptions extends LayerOptions {
  /**
   * Where the database lives on disk; in memory when omitted. Held by one process at a time: a
   * second opener fails with a `StorageError` naming the holder (`DataDirLock`).
   */
  readonly dataDir?: string
  /** A migrated data directory on disk that a new `dataDir` starts as a copy of (`PgliteClient`'s `templateDir`). */
  readonly templateDir?: string
  /** A data directory dumped by `PgliteClient.dumpDataDir` to start from (tests load a migrated template). */
  readonly loadDataDir?: Blob | File
}

/**
 * An empty, migrated PGlite data directory. Loading it (`layerPglite({ loadDataDir })`) takes a
 * fraction of a second where initdb plus the migrations take several: tests start each store
 * from one template.
 */
export const pgliteTemplate: Effect.Effect<Blob | File, Errors.StorageError> = Effect.scoped(
  Effect.gen(function* () {
    const client = yield* PgliteClient.make({ types: storeTypes })
    yield* Effect.provideService(migrate, SqlClient.SqlClient, client)
    return yield* PgliteClient.dumpDataDir(client)
  })
).pipe(Effect.mapError((error) => (isStorageError(error) ? error : toStorageError("pgliteTemplate")(error))))

/** An embedded PGlite database (one connection, in process): the client, the migrations, the ports. */
export const layerPglite = (
  options: PgliteOptions = {}
): Layer.Layer<Ports | SqlClient.SqlClient, Errors.StorageError> =>
  onClient(
    PgliteClient.layer({
      types: storeTypes,
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(options.templateDir !== undefined ? { templateDir: options.templateDir } : {}),
      ...(options.loadDataDir !== undefined ? { loadDataDir: options.loadDataDir } : {})
    }),
    options,
    // One process holds the data directory: its windows are kept in memory (`RateLimiter.layerInProcess`).
    RateLimiter.layerInProcess
  )

/**
 * The deployment rule both example apps follow: the PostgreSQL server when a URL is given, else
 * embedded PGlite in `dataDir` (started from `templateDir` when new).
 */
export const layerFor = (options: {
  readonly url: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly templateDir?: string
  readonly statementTimeoutMs?: number
  readonly statements?: Statements
  readonly pooler?: Pooler
  readonly maxConnections?: number
  /** A standby for reads (`ServerOptions.readUrl`); with the server only. */
  readonly readUrl?: Option.Option<Redacted.Redacted>
  readonly standbyMaxLagMs?: number
}): Layer.Layer<Ports | SqlClient.SqlClient, Errors.StorageError> =>
  Option.isSome(options.url)
    ? layerServer({
        url: options.url.value,
        ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
        ...(options.statements === undefined ? {} : { statements: options.statements }),
        ...(options.pooler === undefined ? {} : { pooler: options.pooler }),
        ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
        ...(options.readUrl !== undefined && Option.isSome(options.readUrl) ? { readUrl: options.readUrl.value } : {}),
        ...(options.standbyMaxLagMs === undefined ? {} : { standbyMaxLagMs: options.standbyMaxLagMs })
      })
    : layerPglite({
        dataDir: options.dataDir,
        ...(options.templateDir !== undefined ? { templateDir: options.templateDir } : {})
      })
