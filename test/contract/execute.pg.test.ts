/**
 * The thin statement path of the PostgreSQL server store (`internal/execute.ts`): inside a unit of
 * work it runs on the transaction's connection, outside it on a pooled one, and a statement that
 * fails leaves its connection in the pool (as `@effect/sql-pg` does), with the driver's error as
 * the cause of a `SqlError`.
 */
import * as StoragePg from "@crm/storage-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { executeOn } from "../../packages/storage-pg/src/internal/execute.js"
import { freshDatabase, serverUrl } from "../support/pgDatabase.js"

const onServer = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const database = yield* freshDatabase(serverUrl!)
        const context = yield* Layer.build(StoragePg.layerServer({ url: database.url, maxConnections: 1 }))
        return yield* Effect.provide(effect, context)
      })
    )
  )

describe.skipIf(serverUrl === undefined)("execute on the PostgreSQL server", () => {
  it("joins the unit of work it runs in: it sees its writes and is rolled back with it", async () => {
    const outcome = await onServer(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const execute = executeOn(sql)
        yield* sql`CREATE TABLE execute_probe (n integer)`
        const seenInside = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO execute_probe VALUES (1)`
              yield* execute("INSERT INTO execute_probe VALUES ($1::integer)", [2])
              const rows = yield* execute<{ n: string }>("SELECT count(*) AS n FROM execute_probe WHERE n > $1", [0])
              return yield* Effect.fail(rows[0]!.n)
            })
          )
          .pipe(Effect.flip)
        const [after] = yield* execute<{ n: string }>("SELECT count(*) AS n FROM execute_probe WHERE n > $1", [0])
        return { seenInside, after: after!.n }
      })
    )
    expect(outcome).toEqual({ seenInside: "2", after: "0" })
  }, 30_000)

  it("fails a refused statement with the driver's error and keeps the connection", async () => {
    const outcome = await onServer(
      Effect.gen(function* () {
        const execute = executeOn(yield* SqlClient.SqlClient)
        const pid = execute<{ pid: number }>("SELECT pg_backend_pid() AS pid WHERE $1::integer = 1", [1])
        const [before] = yield* pid
        const error = yield* Effect.flip(execute("SELECT 1 / $1::integer AS q", [0]))
        const [after] = yield* pid
        return { error, same: before!.pid === after!.pid }
      })
    )
    expect(outcome.error).toBeInstanceOf(SqlError)
    expect((outcome.error.cause as { code?: string }).code).toBe("22012")
    // One pooled connection: a discarded one would have been replaced by a new backend.
    expect(outcome.same).toBe(true)
  }, 30_000)
})
