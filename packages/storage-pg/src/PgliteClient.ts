/**
 * A `SqlClient` over an in-process PGlite database, built like
 * `@effect/sql-sqlite-node`'s client: one connection, `Client.make` with an
 * acquirer and a transaction acquirer, and `@effect/sql-pg`'s compiler, so
 * repositories written against `SqlClient` run unchanged on PGlite and on a
 * PostgreSQL server. The connection speaks the wire protocol to PGlite itself
 * (`internal/pgliteSession.ts`): statements with parameters are prepared once
 * under a name, as on the server's fast path, instead of being parsed and
 * planned again by `PGlite.query` on every run.
 *
 * Values are made to look the way `pg` (as used by `@effect/sql-pg` with its
 * defaults) sees them, in both directions, because code tested on PGlite must
 * not change behaviour on the server:
 *
 * - Results: every column is parsed by `pg`'s type parsers: the registry given
 *   as `types` (as `pg`'s own option of that name), else the global one
 *   (`pg.types.getTypeParser`), looked up for each result as `pg` does, so that
 *   a `pg.types.setTypeParser` override applies to both engines. PGlite's own
 *   parsers differ from `pg`'s on:
 *     - int8 (20): PGlite gives a number, or a bigint past 2^53; `pg` a string.
 *     - int8[] (1016): numbers vs strings, as above.
 *     - numeric[] (1231): PGlite gives strings; `pg` parses them as floats.
 *       (numeric itself is a string on both.)
 *     - date (1082): PGlite reads it as UTC midnight, `pg` as local midnight;
 *       they agree only when the process runs in UTC. BC dates are an Invalid
 *       Date on PGlite.
 *     - bytea (17): PGlite gives a Uint8Array, `pg` a Buffer.
 *     - interval (1186): PGlite gives the text, `pg` a PostgresInterval.
 *     - array types `pg` has no parser for (name[], arrays of enums...):
 *       PGlite gives JS arrays, `pg` the text.
 *   timestamptz (1184), timestamp (1114), json and jsonb already agreed (a
 *   Date, parsed objects); they now come from the same code as well.
 * - Parameters: each value goes through `pg`'s `prepareValue` first (Date to a
 *   local timestamp with offset, arrays to PostgreSQL array literals, other
 *   objects to JSON, Buffers kept) and is sent as that text; a Buffer bound to
 *   bytea is sent in hex, any other Buffer as UTF-8 text. Serialised by
 *   parameter type as PGlite does, a JS array bound to jsonb would become JSON
 *   on PGlite but an array literal (an error) on the server, an object bound to
 *   text "[object Object]", and a string bound to bytea would throw.
 *
 * Statements without parameters use the simple query protocol, like `pg`
 * does, so multi-statement scripts (migrations) work and return one row array
 * per statement.
 */

import { cpSync, existsSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { FifoLock } from "@crm/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { makeCompiler, type PgCustom } from "@effect/sql-pg/PgClient"
import { PGlite, type PGliteOptions, type Results } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Pg from "pg"
import * as DataDirLock from "./DataDirLock.js"
import { type FastPath, inUnitElse, type Transact, useFastPath } from "./internal/execute.js"
import { inProcess, makeSession, type Session } from "./internal/pgliteSession.js"

// `pg` exports `./lib/*` on purpose but ships no types for `lib/utils`.
const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as {
  readonly prepareValue: (value: unknown) => string | Buffer | null
}

export const TypeId: unique symbol = Symbol.for("@crm/storage-pg/PgliteClient")
export type TypeId = typeof TypeId

export interface PgliteClientOptions {
  /**
   * A directory on disk; in memory when undefined. One process at a time: it is locked while open
   * (`DataDirLock`), and another opener is refused with `DataDirLocked`.
   */
  readonly dataDir?: string | undefined
  /**
   * A migrated data directory on disk that a new (absent or empty) `dataDir` starts as a copy of:
   * copying takes a fraction of a second where initdb and the migrations take several. Ignored
   * when it holds no database; a copy that fails leaves PGlite to run initdb.
   */
  readonly templateDir?: string | undefined
  /** A tarball from `dumpDataDir` to start from (e.g. a migrated template). */
  readonly loadDataDir?: Blob | File | undefined
  /** How values are read, as `pg`'s `types` option: `pg.types` (the global registry) by default. */
  readonly types?: Pg.CustomTypesConfig | undefined
}

export type DumpCompression = "none" | "gzip" | "auto"

/**
 * The client: a `SqlClient` that also exposes the raw PGlite instance (for
 * dump/load and diagnostics) and `json`, as `PgClient` does. A query made on
 * the instance itself reads values with PGlite's own parsers and does not wait
 * for the client: make it only while the client runs nothing.
 */
export interface PgliteSqlClient extends SqlClient.SqlClient {
  readonly [TypeId]: TypeId
  readonly pglite: PGlite
  readonly json: (value: unknown) => Statement.Fragment
  readonly dumpDataDir: (compression?: DumpCompression) => Effect.Effect<Blob | File, SqlError>
}

export class PgliteClient extends Context.Tag("@crm/storage-pg/PgliteClient")<PgliteClient, PgliteSqlClient>() {}

const PgJson = Statement.custom<PgCustom>("PgJson")

/**
 * The connection's lock, taken in arrival order (`FifoLock`), and `hold`, which holds it until the
 * enclosing scope closes: `@effect/sql`'s acquirer. The fast path holds it with `holding`, no scope:
 * `Effect.scoped` copies the fiber's context to add its scope, once per statement.
 */
const makeLock = () => {
  const lock = FifoLock.make()
  // Added to the scope as it is: `Effect.addFinalizer` snapshots the fiber's
  // FiberRefs to diff and patch them around the finalizer, two diffs of the
  // whole context per statement (40-50 µs), for a release that reads none.
  const released = Effect.sync(lock.release)
  const hold: Effect.Effect<void, never, Scope.Scope> = Effect.uninterruptibleMask((restore) =>
    Effect.zipRight(
      restore(lock.acquire),
      Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, released))
    )
  )
  return { hold, holding: lock.holding } as const
}

type Lock = ReturnType<typeof makeLock>

/**
 * PGlite's side of `internal/execute.ts`: the repositories' hottest statements and every unit of
 * work of theirs go straight to the connection, past `@effect/sql`'s span, scope and statement
 * compiler (a text that is already final), which were a third of what PGlite's requests promoted
 * to the old generation and so of how often a full collection stalled every request in flight.
 * A unit of work opened inside another is `@effect/sql`'s savepoint, on the same connection.
 */
const fastPath = (lock: Lock, connection: Connection, withTransaction: Transact): FastPath => {
  const script = (text: string) => connection.executeUnprepared(text, [], undefined)
  const begin = script("BEGIN")
  const commit = script("COMMIT")
  const rollback = Effect.ignore(script("ROLLBACK"))

  const transaction: Transact = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.withFiberRuntime<A, E | SqlError, R>((fiber) =>
      Option.isSome(Context.getOption(fiber.currentContext, SqlClient.TransactionConnection))
        ? withTransaction(effect)
        : lock.holding<A, E | SqlError, R>((restore) =>
            Effect.zipRight(
              begin,
              restore(Effect.provideService(effect, SqlClient.TransactionConnection, [connection, 0] as const)).pipe(
                Effect.exit,
                // A refused COMMIT has ended the transaction: it is the unit's failure, as on the server's path.
                Effect.flatMap(
                  (exit): Effect.Effect<A, E | SqlError> =>
                    Exit.isSuccess(exit) ? Effect.as(commit, exit.value) : Effect.zipRight(rollback, exit)
                )
              )
            )
          )
    )

  const execute = inUnitElse(
    <A>(text: string, params: ReadonlyArray<unknown>) =>
      lock.holding(() => connection.execute(text, params, undefined)) as Effect.Effect<ReadonlyArray<A>, SqlError>
  )
  return { execute, transaction }
}

/**
 * PostgreSQL's settings for an embedded, single-connection database, where whatever PostgreSQL
 * does in the background on a server is done by the statement that needs it, while every other
 * request waits:
 *
 * - shared_buffers: PGlite starts with a server's (128MB), which its start zero-fills: about a
 *   second of every start and 128MB of resident memory before the first query. 16MB holds the
 *   working set of a CRM that fits in an embedded store; what does not fit is read back from the
 *   data directory (the operating system's cache), as it is on a server.
 * - gin_pending_list_limit: the trigram indexes behind `q` take new rows into a pending list, merged
 *   into the index by the insert that finds it past the limit (on a server, autovacuum mostly does
 *   it). At the default 4MB that merge held one insert, and every request behind it, 45-70 ms once
 *   in ~3,000 contacts; at 128kB no insert of 30,000 took over 15 ms, and they cost less on average.
 * - wal_init_zero: each new 16MB WAL segment was written full of zeros first, 30-65 ms of one
 *   statement per segment; without it only its last byte is written (the file is the same size).
 */
const START_PARAMS: ReadonlyArray<string> = [
  ...PGlite.defaultStartParams,
  ...["-c", "shared_buffers=16MB", "-c", "gin_pending_list_limit=128kB", "-c", "wal_init_zero=off"]
]

const pgliteOptions = (options: PgliteClientOptions): PGliteOptions => ({
  ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
  ...(options.loadDataDir !== undefined ? { loadDataDir: options.loadDataDir } : {}),
  startParams: [...START_PARAMS],
  // The extensions the migrations create (`CREATE EXTENSION` finds only those loaded here): pg_trgm
  // for the trigram indexes behind `q`. Loading one into an existing data directory is harmless.
  extensions: { pg_trgm }
})

/** See `templateDir`. Runs under the directory's lock, so two openers never both copy. */
const seedDataDir = (dataDir: string, templateDir: string) =>
  Effect.gen(function* () {
    const isNew = !existsSync(dataDir) || readdirSync(dataDir).length === 0
    if (!isNew || !existsSync(`${templateDir}/PG_VERSION`)) return
    // Copied beside the target and renamed into place, so a copy cut short never looks like a database.
    const partial = `${dataDir}.seeding-${process.pid}`
    yield* Effect.try(() => {
      cpSync(templateDir, partial, { recursive: true })
      if (existsSync(dataDir)) rmdirSync(dataDir)
      renameSync(partial, dataDir)
    }).pipe(
      Effect.tap(() => Effect.logDebug(`PGlite data directory ${dataDir} started from ${templateDir}`)),
      Effect.catchAll((error) =>
        Effect.zipRight(
          Effect.sync(() => rmSync(partial, { recursive: true, force: true })),
          Effect.logWarning(`could not copy ${templateDir} to ${dataDir}; PGlite will run initdb`, error.error)
        )
      )
    )
  })

const makeConnection = (session: Session): Connection => {
  // PGlite cannot cancel a running statement, so an interrupted fiber waits
  // for it: the lock is then never released while PGlite is still busy on
  // behalf of its holder.
  const run = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
    Effect.uninterruptible(
      Effect.tryPromise({
        try: (): Promise<ReadonlyArray<Results>> => session.run(sql, params, rowMode),
        catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
      })
    )

  // `pg` returns an array of row arrays only when the text held several
  // statements; one statement gives its rows.
  const rowsOf = (results: ReadonlyArray<Results>): ReadonlyArray<object> =>
    results.length === 1 ? results[0]!.rows : results.map((result) => result.rows)

  const execute: Connection["execute"] = (sql, params, transformRows) =>
    Effect.map(run(sql, params, "object"), (results) => {
      const rows = rowsOf(results)
      return transformRows === undefined ? rows : transformRows(rows)
    })

  return {
    execute,
    executeRaw: (sql, params) =>
      Effect.map(run(sql, params, "object"), (results) => (results.length === 1 ? results[0] : results)),
    executeValues: (sql, params) =>
      Effect.map(run(sql, params, "array"), (results) => rowsOf(results) as ReadonlyArray<ReadonlyArray<unknown>>),
    executeUnprepared: execute,
    // PGlite has no cursors over this API; the rows are read at once and the
    // lock is held until the stream ends, as it would be for a cursor.
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(Effect.map(execute(sql, params, transformRows), (rows) => Stream.fromIterable(rows)))
  }
}

/**
 * Opens PGlite (in memory unless `dataDir` is given) and closes it when the
 * scope closes. Every statement outside a transaction holds the lock for its
 * own duration; a transaction holds it from BEGIN to COMMIT/ROLLBACK, so other
 * fibers' statements wait rather than run inside it. Consequence of having one
 * connection: code inside a transaction must not wait for another fiber that
 * runs SQL outside it (or calls `sql.reserve`), or it deadlocks.
 */
export const make = (
  options: PgliteClientOptions = {}
): Effect.Effect<PgliteSqlClient, SqlError | DataDirLock.DataDirLocked, Scope.Scope> =>
  Effect.gen(function* () {
    const dataDir = options.dataDir
    if (dataDir !== undefined) {
      // Taken before anything touches the directory and let go after PGlite has closed it.
      yield* DataDirLock.acquire(dataDir).pipe(
        Effect.catchTag("DataDirLockFailed", (error) =>
          Effect.fail(new SqlError({ cause: error.cause, message: `PgliteClient: ${error.message}` }))
        )
      )
      if (options.templateDir !== undefined) yield* seedDataDir(dataDir, options.templateDir)
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create(pgliteOptions(options)),
        catch: (cause) => new SqlError({ cause, message: "PgliteClient: failed to open the database" })
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.catchAllCause(Effect.logWarning))
    )
    const lock = makeLock()
    const connection = makeConnection(makeSession(inProcess(db), options.types ?? Pg.types, prepareValue))
    const acquirer: Connection.Acquirer = Effect.as(lock.hold, connection)

    // Share the caller's Reactivity when there is one, so that mutations
    // invalidate `sql.reactive` queries made through this client.
    const reactivity = yield* Effect.serviceOption(Reactivity.Reactivity)
    const client = yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler: makeCompiler(),
      spanAttributes: [
        ["db.system.name", "postgresql"],
        ["db.namespace", "postgres"]
      ]
    }).pipe(
      Option.match(reactivity, {
        onNone: () => Effect.provide(Reactivity.layer),
        onSome: (service) => Effect.provideService(Reactivity.Reactivity, service)
      })
    )

    const dumpDataDir = (compression: DumpCompression = "none") =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (tx) =>
        Option.isSome(tx) && tx.value[0] === connection
          ? Effect.fail(
              new SqlError({
                cause: new Error("dumpDataDir inside a transaction"),
                message: "PgliteClient: cannot dump the data directory inside one of its own transactions"
              })
            )
          : // Under the lock, so no transaction is half done in the dump.
            lock.holding(() =>
              Effect.tryPromise({
                try: () => db.dumpDataDir(compression),
                catch: (cause) => new SqlError({ cause, message: "PgliteClient: failed to dump the data directory" })
              })
            )
      )

    useFastPath(client, fastPath(lock, connection, client.withTransaction))
    return Object.assign(client, {
      [TypeId]: TypeId as TypeId,
      pglite: db,
      json: (value: unknown) => PgJson(value, undefined, undefined),
      dumpDataDir
    })
  })

/** Provides both `PgliteClient` and `SqlClient`. */
export const layer = (
  options: PgliteClientOptions = {}
): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError | DataDirLock.DataDirLocked> =>
  Layer.scopedContext(
    Effect.map(make(options), (client) =>
      Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  )

/**
 * The data directory as a tarball, to hand to `make({ loadDataDir })`: tests
 * migrate one template and load a copy per suite instead of running initdb
 * and the migrations again. Uncompressed by default: loading it is faster and
 * it never leaves the process.
 */
export const dumpDataDir = (
  client: PgliteSqlClient,
  compression?: DumpCompression
): Effect.Effect<Blob | File, SqlError> => client.dumpDataDir(compression)
