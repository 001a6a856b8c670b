/**
 * The fast statement path of the PostgreSQL server store: `Storage.ServerOptions.statements`,
 * "fast" by default. With "plain" nothing here is used: every statement goes through `@effect/sql`.
 * PGlite has a path of its own through the same three functions (`PgliteClient`'s `fastPath`): its
 * statements go straight to its one connection under the client's lock, its units of work skip
 * `sql.withTransaction`, and `deferOn` runs at once, there being no round trip to save.
 *
 * What it does. The hottest statements (reading one record, the rate take, polling events, the
 * idempotency lock and record, the contact insert and the event append) run through `execute`
 * instead of `sql.unsafe`: the text and its parameters are sent as they are, on the transaction's
 * connection when there is one (`SqlClient.TransactionConnection`, the hook `@effect/sql` itself
 * uses) and otherwise straight to the pool, with the same `SqlError` on failure. `transaction` opens
 * a unit of work without `sql.withTransaction`'s span, scope and context copies; statements inside
 * it, `@effect/sql`'s included, find its connection the usual way. Its `BEGIN` goes out in one write
 * with its first statement, and `deferOn` holds the event append back to go out with its `COMMIT`.
 * On a client without a fast path (the plain path, a `SqlClient` a user provides) all three fall
 * back to `@effect/sql`.
 *
 * Why it exists (docs/benchmarks.md, and the passes of its history by title). `@effect/sql` costs
 * 25-45 µs of CPU per statement over the raw driver, for a span, a scope with a copy of the fiber's
 * context and a compile of a text that is already final ("Second pass"). Sent as they are,
 * `GET /contacts/{id}` did 1.37x the requests at 0.73x the server CPU, the idempotent create 1.28x,
 * and units of work of their own 1.08x on creates ("Third pass", items 1 and 2). The event append
 * sent with `COMMIT` holds the organisation's event lock for no round trip of ours: creates 1.85x
 * the requests at 0.65x the server CPU ("Fourth pass", step 3). `BEGIN` with the first statement
 * saves a round trip per write, within noise alone (the same pass, step 2).
 *
 * Where it reaches past public APIs. `pg` has pipeline mode only as a constructor option (`pipeline`,
 * read-only in its types): a unit's client is switched into it after checkout and back, idle, before
 * release, by writing that field. `BEGIN` and the first statement are corked into one write through
 * `client.connection.stream`, which @types/pg declares and pg does not document. The path is found
 * from the `SqlClient` through `fastPaths`, written only when the store is made with it.
 *
 * What removing it costs: the figures above; a create then takes five round trips where it takes
 * three ("Fourth pass", "Statements per request now"). `statements: "plain"` is that removal: the
 * storage contract runs on both paths, and the bench can compare them.
 *
 * What it waits for. Switching an idle client's pipeline mode: brianc/node-postgres#3766 (a setter
 * that throws unless the client is idle; closed, not merged,
 * https://github.com/brianc/node-postgres/pull/3766) and its types, DefinitelyTyped#75499 (open,
 * https://github.com/DefinitelyTyped/DefinitelyTyped/pull/75499). Pipeline mode itself came with
 * https://github.com/brianc/node-postgres/pull/3652. Corking several queries into one write: no
 * upstream issue found (pg corks the messages of one query since
 * https://github.com/brianc/node-postgres/pull/3402). `@effect/sql`'s per-statement cost: no issue
 * found for Effect 3; Effect 4's SQL module propagates a span per statement only when asked
 * (https://github.com/Effect-TS/effect/pull/7493).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import type * as Pg from "pg"

export type Execute = <A extends object = Record<string, unknown>>(
  text: string,
  params: ReadonlyArray<unknown>
) => Effect.Effect<ReadonlyArray<A>, SqlError>

export type Transact = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>

/** How a client's statements and units of work skip `@effect/sql`: the server's (`serverPath`) or PGlite's. */
export interface FastPath {
  readonly execute: Execute
  readonly transaction: Transact
}

/**
 * The fast paths of the clients made with one: `Storage.layerServer`'s with "fast", and every
 * `PgliteClient`. Keyed by the client, which every repository already receives, so the path
 * travels with it; any other client runs the same texts through `sql.unsafe`.
 */
const fastPaths = new WeakMap<SqlClient.SqlClient, FastPath>()

/** Sends `sql`'s statements and units of work `path`'s way. */
export const useFastPath = (sql: SqlClient.SqlClient, path: FastPath): void => {
  fastPaths.set(sql, path)
}

/**
 * A statement on the connection of the unit of work it runs in (`SqlClient.TransactionConnection`,
 * the hook `@effect/sql` itself uses), else `outside`.
 */
export const inUnitElse =
  (outside: Execute): Execute =>
  <A extends object>(text: string, params: ReadonlyArray<unknown>) =>
    Effect.withFiberRuntime<ReadonlyArray<A>, SqlError>((fiber) => {
      const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      return transaction._tag === "Some"
        ? (transaction.value[0].execute(text, params, undefined) as Effect.Effect<ReadonlyArray<A>, SqlError>)
        : outside<A>(text, params)
    })

const failed = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

// Worded as `@effect/sql-pg` words it: whatever the server said while refusing a connection, this
// is how `internal/errors.ts` knows the database could not be reached.
const notConnected = (cause: unknown) =>
  new SqlError({
    cause: cause ?? new Error("the pool returned no connection"),
    message: "Failed to acquire connection"
  })

type Rows = ReadonlyArray<object>

/**
 * A unit of work's client. `BEGIN` is not a round trip of its own: it goes out in one write with
 * the unit's first statement (the client is in `pg`'s pipeline mode while the unit holds it), and
 * a unit that sends no statement sends no `BEGIN`, `COMMIT` or `ROLLBACK` either.
 */
interface Unit {
  readonly client: Pg.PoolClient
  begun: boolean
  /** Statements held back to go out with COMMIT (`deferOn`), in order. */
  readonly deferred: Array<Statement>
}

interface Statement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

const COMMIT: Statement = { text: "COMMIT", params: [] }

/** What `pg` has but its types do not show (`pipeline` is read-only there). */
type Pipelining = Pg.PoolClient & {
  pipeline: boolean
  readonly connection: { readonly stream: { cork(): void; uncork(): void } }
}

type Done = (error: Error | null | undefined, result: Pg.QueryResult | ReadonlyArray<Pg.QueryResult>) => void

const submit = (
  client: Pg.PoolClient,
  text: string,
  params: ReadonlyArray<unknown>,
  rowMode: "array" | undefined,
  done: Done
) => {
  if (rowMode === undefined) client.query(text, params as Array<unknown>, done as never)
  else client.query({ text, values: params as Array<unknown>, rowMode }, done as never)
}

/**
 * Sends a statement: on a unit's client not yet begun, `BEGIN` and the statement together, corked
 * into one write. Both are answered in order; a failed `BEGIN` fails the statement (it can fail only
 * with the connection, which fails the statement too).
 */
const send = (
  target: Pg.PoolClient | Unit,
  text: string,
  params: ReadonlyArray<unknown>,
  rowMode: "array" | undefined,
  done: Done
) => {
  if (!("begun" in target)) return submit(target, text, params, rowMode, done)
  if (target.begun) return submit(target.client, text, params, rowMode, done)
  target.begun = true
  const stream = (target.client as Pipelining).connection.stream
  let beginFailed: Error | undefined
  stream.cork()
  try {
    target.client.query("BEGIN", (error) => {
      if (error) beginFailed = error
    })
    submit(target.client, text, params, rowMode, (error, result) => done(beginFailed ?? error, result))
  } finally {
    stream.uncork()
  }
}

/**
 * Statements sent in one write (after `BEGIN` when the unit has not begun), answered in order: the
 * first failure, or nothing. After a failure PostgreSQL runs none of the rest but `COMMIT`, which
 * then rolls the unit back.
 */
const sendAll = (unit: Unit, statements: ReadonlyArray<Statement>) =>
  Effect.async<void, SqlError>((resume) => {
    const all = unit.begun ? statements : [{ text: "BEGIN", params: [] }, ...statements]
    unit.begun = true
    const stream = (unit.client as Pipelining).connection.stream
    let failure: Error | undefined
    stream.cork()
    try {
      for (let n = 0; n < all.length; n++) {
        submit(unit.client, all[n]!.text, all[n]!.params, undefined, (error) => {
          if (error && failure === undefined) failure = error
          if (n === all.length - 1) resume(failure === undefined ? Effect.void : Effect.fail(failed(failure)))
        })
      }
    } finally {
      stream.uncork()
    }
  })

/** One statement on a client; a text of several statements (no parameters) gives a row list each. */
const query = (target: Pg.PoolClient | Unit, text: string, params: ReadonlyArray<unknown>, rowMode?: "array") =>
  Effect.async<Rows | ReadonlyArray<Rows>, SqlError>((resume) =>
    send(target, text, params, rowMode, (error, result) =>
      resume(
        error
          ? Effect.fail(failed(error))
          : Effect.succeed(
              Array.isArray(result) ? result.map((one) => one.rows ?? []) : (result as Pg.QueryResult).rows
            )
      )
    )
  )

type TransformRows = Parameters<Connection["execute"]>[2]

/**
 * The `Connection` that statements inside `transaction` find, over its one pooled client; `deferOn`
 * finds the unit through it. `@effect/sql` calls these as methods.
 */
class UnitConnection implements Connection {
  constructor(readonly unit: Unit) {}

  execute(text: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) {
    return Effect.map(query(this.unit, text, params), (rows) =>
      transformRows === undefined ? rows : transformRows(rows as ReadonlyArray<object>)
    )
  }

  // `@effect/sql` opens a nested unit with a SAVEPOINT. What was deferred belongs to the outer
  // unit, so it goes out first: rolled back to the savepoint, it would be lost.
  executeUnprepared(text: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) {
    return this.unit.deferred.length > 0 && text.startsWith("SAVEPOINT ")
      ? Effect.as(sendAll(this.unit, [...this.unit.deferred.splice(0), { text, params }]), [])
      : this.execute(text, params, transformRows)
  }

  executeRaw(text: string, params: ReadonlyArray<unknown>) {
    return Effect.async<unknown, SqlError>((resume) => {
      send(this.unit, text, params, undefined, (error, result) =>
        resume(error ? Effect.fail(failed(error)) : Effect.succeed(result))
      )
    })
  }

  executeValues(text: string, params: ReadonlyArray<unknown>) {
    return query(this.unit, text, params, "array") as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>
  }

  // Nothing here streams inside a unit of work; the rows are read at once, as on PGlite.
  executeStream(text: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) {
    return Stream.unwrap(Effect.map(this.execute(text, params, transformRows), (rows) => Stream.fromIterable(rows)))
  }
}

/**
 * Hands `use` a pooled client and its `release`, or fails through `resume` when none can be had.
 * While checked out, a client's `error` event has no listener of the pool's: unheard, it would end
 * the process. Heard, it marks the client broken, and `release` then has the pool drop it; a failed
 * statement alone keeps it (`pool.query` would drop it after any failure, a refused insert included).
 */
const checkOut = (
  pool: Pg.Pool,
  resume: (failure: Effect.Effect<never, SqlError>) => void,
  use: (client: Pg.PoolClient, release: () => void) => void
) =>
  pool.connect((error, client, release) => {
    if (error || client === undefined) {
      resume(Effect.fail(notConnected(error)))
      return
    }
    let broken: Error | undefined
    const onError = (cause: Error) => {
      broken = cause
    }
    client.on("error", onError)
    use(client, () => {
      client.off("error", onError)
      release(broken)
    })
  })

/** The server's fast path, on `pool` (the pool under the client). */
export const serverPath = (pool: Pg.Pool): FastPath => {
  const transaction: Transact = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        Effect.async<{ readonly client: Pg.PoolClient; readonly release: () => void }, SqlError>((resume) =>
          checkOut(pool, resume, (client, release) => {
            // Pipeline mode only while the unit holds the client, and only ever idle when switched:
            // the unit's last statement (COMMIT or ROLLBACK) has been answered before release.
            ;(client as Pipelining).pipeline = true
            resume(
              Effect.succeed({
                client,
                release: () => {
                  ;(client as Pipelining).pipeline = false
                  release()
                }
              })
            )
          })
        ),
        ({ client, release }) => {
          const unit: Unit = { client, begun: false, deferred: [] }
          const end = (exit: Exit.Exit<A, E | SqlError>) =>
            // Nothing sent, nothing to end. The deferred statements go out with COMMIT, in one
            // write; a failure of theirs or of COMMIT is the unit's failure (the writes are gone),
            // not a defect. A failed ROLLBACK means the connection is broken: the pool drops it when
            // it hears its error.
            Exit.isSuccess(exit)
              ? !unit.begun && unit.deferred.length === 0
                ? exit
                : Effect.as(sendAll(unit, [...unit.deferred.splice(0), COMMIT]), exit.value)
              : !unit.begun
                ? exit
                : Effect.zipRight(Effect.ignore(query(client, "ROLLBACK", [])), exit)
          return restore(
            Effect.provideService(effect, SqlClient.TransactionConnection, [new UnitConnection(unit), 0] as const)
          ).pipe(Effect.exit, Effect.flatMap(end), Effect.ensuring(Effect.sync(release)))
        }
      )
    )

  // Not interruptible by design: `@effect/sql-pg` cancels an interrupted statement through the
  // pool, and under load those cancels queue behind the very connections they wait to free.
  const onPool = <A>(text: string, params: ReadonlyArray<unknown>) =>
    Effect.async<ReadonlyArray<A>, SqlError>((resume) =>
      checkOut(pool, resume, (client, release) =>
        client.query(text, params as Array<unknown>, (error, result) => {
          release()
          resume(error ? Effect.fail(failed(error)) : Effect.succeed(result.rows as ReadonlyArray<A>))
        })
      )
    )

  return { execute: inUnitElse(onPool), transaction }
}

export const transactionOn = (sql: SqlClient.SqlClient): Transact =>
  fastPaths.get(sql)?.transaction ?? sql.withTransaction

export const executeOn = (sql: SqlClient.SqlClient): Execute =>
  fastPaths.get(sql)?.execute ?? ((text, params) => sql.unsafe(text, params))

/**
 * For a statement that should be the last of its unit of work (the event append, whose lock orders
 * the organisation's writers until COMMIT): inside a unit of `transaction`, it is held back and
 * sent with the unit's COMMIT, in one write, so the lock it takes is held for no round trip of
 * ours; it is then not run if the unit fails, and its failure fails the unit. Inside a nested unit
 * (a savepoint, which may be rolled back) and outside any unit it runs at once, as `execute`.
 */
export const deferOn = (sql: SqlClient.SqlClient) => {
  const execute = executeOn(sql)
  return (text: string, params: ReadonlyArray<unknown>): Effect.Effect<void, SqlError> =>
    Effect.withFiberRuntime((fiber) => {
      const open = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      const unit =
        open._tag === "Some" && open.value[1] === 0 && open.value[0] instanceof UnitConnection
          ? open.value[0].unit
          : undefined
      if (unit === undefined) return Effect.asVoid(execute(text, params))
      unit.deferred.push({ text, params })
      return Effect.void
    })
}
