import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { transactionOn } from "./execute.js"

/**
 * Runs `effect` in a transaction: the caller's when there is one (no SAVEPOINT: a failure inside
 * fails the whole unit of work, which is what the kernel's units want), else its own.
 * `sql.withTransaction` nested would send a SAVEPOINT, a round trip that only pays where a
 * failure must be caught and survived; those few places call `sql.withTransaction` themselves.
 */
export const atomically = (sql: SqlClient.SqlClient) => {
  const transaction = transactionOn(sql)
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (open) =>
      open._tag === "Some" ? effect : transaction(effect)
    )
}
