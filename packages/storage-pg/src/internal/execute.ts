/**
 * The hottest statements (reading one record, the rate take, polling events, the idempotency
 * lock and record, the contact insert and the event append) run through `execute` instead of
 * `sql.unsafe`. `@effect/sql` wraps every statement in a span, a scope (a copy of the fiber's
 * whole context) and a compile of its fragments: 25–45 µs of CPU per statement, measured, for
 * texts that are already final. `execute` sends the text and its parameters as they are, on the
 * transaction's connection when there is one (`SqlClient.TransactionConnection`, the hook
 * `@effect/sql` itself uses) and otherwise straight to the pool, with the same `SqlError` on
 * failure. Everything else, transactions included, stays with `@effect/sql`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Pg from "pg"

export type Execute = <A extends object = Record<string, unknown>>(
  text: string,
  params: ReadonlyArray<unknown>
) => Effect.Effect<ReadonlyArray<A>, SqlError>

/**
 * The pools behind the clients that `Storage.layerServer` makes. Keyed by the client, which every
 * repository already receives, so the pool travels with it; a client without one (PGlite, or a
 * `SqlClient` a user provides) runs the same texts through `sql.unsafe`.
 */
const pools = new WeakMap<SqlClient.SqlClient, Pg.Pool>()

export const registerPool = (sql: SqlClient.SqlClient, pool: Pg.Pool): void => {
  pools.set(sql, pool)
}

const failed = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

export const executeOn = (sql: SqlClient.SqlClient): Execute => {
  const pool = pools.get(sql)
  if (pool === undefined) return (text, params) => sql.unsafe(text, params)

  // Not interruptible by design: `@effect/sql-pg` cancels an interrupted statement through the
  // pool, and under load those cancels queue behind the very connections they wait to free.
  // `pool.query` would also do, but it discards the connection after any failed statement (a
  // refused insert included); as `@effect/sql-pg` does, only a broken connection is discarded.
  const onPool = <A>(text: string, params: ReadonlyArray<unknown>) =>
    Effect.async<ReadonlyArray<A>, SqlError>((resume) => {
      pool.connect((error, client, release) => {
        if (error || client === undefined) {
          resume(Effect.fail(failed(error ?? new Error("the pool returned no connection"))))
          return
        }
        let broken: Error | undefined
        // A checked-out client's `error` event has no other listener: unheard, it would end the process.
        const onError = (cause: Error) => {
          broken = cause
        }
        client.once("error", onError)
        client.query(text, params as Array<unknown>, (error, result) => {
          client.off("error", onError)
          release(broken)
          resume(error ? Effect.fail(failed(error)) : Effect.succeed(result.rows as ReadonlyArray<A>))
        })
      })
    })

  return <A extends object>(text: string, params: ReadonlyArray<unknown>) =>
    Effect.withFiberRuntime<ReadonlyArray<A>, SqlError>((fiber) => {
      const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      return transaction._tag === "Some"
        ? (transaction.value[0].execute(text, params, undefined) as Effect.Effect<ReadonlyArray<A>, SqlError>)
        : onPool<A>(text, params)
    })
}
