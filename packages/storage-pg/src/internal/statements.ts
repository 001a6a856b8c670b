import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A migration as separate statements: PGlite's extended-protocol queries accept one statement
 * at a time, and a function body full of semicolons cannot be split safely afterwards.
 */
export const statements = (...sqls: ReadonlyArray<string>): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(sqls, (text) => sql.unsafe(text), { discard: true }))
