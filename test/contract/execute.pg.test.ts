/**
 * The thin statement path of the PostgreSQL server store (`internal/execute.ts`): inside a unit of
 * work it runs on the transaction's connection, outside it on a pooled one, and a statement that
 * fails leaves its connection in the pool (as `@effect/sql-pg` does), with the driver's error as
 * the cause of a `SqlError`. Its transaction commits or rolls back as one, and `@effect/sql`'s own
 * statements and savepoints inside it run on its connection. A deferred statement (`deferOn`, the
 * event append) goes out with the unit's COMMIT: after everything else, before a nested unit that
 * may roll back, not at all when the unit fails, and failing the unit when it fails.
 */
import * as StoragePg from "@crm/storage-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { expect, it } from "vitest"
import { deferOn, executeOn, transactionOn } from "../../packages/storage-pg/src/internal/execute.js"
import { describeOnServer, freshServerDatabase } from "../support/pgServer.js"

const onServer = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const database = yield* freshServerDatabase()
        const context = yield* Layer.build(StoragePg.layerServer({ url: database.url, maxConnections: 1 }))
        return yield* Effect.provide(effect, context)
      })
    )
  )

describeOnServer("execute on the PostgreSQL server", () => {
  it("joins the unit of work it runs in: it sees its writes and is rolled back with it", async () => {
    const outcome = await onServer(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const execute = executeOn(sql)
        const transaction = transactionOn(sql)
        const count = Effect.map(
          execute<{ n: string }>("SELECT count(*) AS n FROM execute_probe WHERE n > $1", [0]),
          ([row]) => Number(row!.n)
        )
        yield* sql`CREATE TABLE execute_probe (n integer)`
        const seenInside = yield* transaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO execute_probe VALUES (1)`
            yield* execute("INSERT INTO execute_probe VALUES ($1::integer)", [2])
            return yield* Effect.fail(yield* count)
          })
        ).pipe(Effect.flip)
        const afterRollback = yield* count
        // A savepoint of @effect/sql inside: its rollback leaves the enclosing unit's writes.
        yield* transaction(
          Effect.gen(function* () {
            yield* execute("INSERT INTO execute_probe VALUES ($1::integer)", [3])
            yield* sql
              .withTransaction(Effect.zipRight(sql`INSERT INTO execute_probe VALUES (4)`, Effect.fail("no")))
              .pipe(Effect.ignore)
          })
        )
        const [committed] = yield* sql<{ ns: string }>`SELECT string_agg(n::text, ',') AS ns FROM execute_probe`
        return { seenInside, afterRollback, committed: committed!.ns }
      })
    )
    expect(outcome).toEqual({ seenInside: 2, afterRollback: 0, committed: "3" })
  }, 30_000)

  it("sends a deferred statement with COMMIT, before a savepoint, never for a failed unit; its failure fails the unit", async () => {
    const outcome = await onServer(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const execute = executeOn(sql)
        const defer = deferOn(sql)
        const transaction = transactionOn(sql)
        const all = Effect.map(
          execute<{ ns: string | null }>(
            "SELECT string_agg(n::text, ',' ORDER BY k) AS ns FROM deferred_probe WHERE k > $1",
            [0]
          ),
          ([row]) => row!.ns
        )
        yield* sql`CREATE TABLE deferred_probe (k serial PRIMARY KEY, n integer NOT NULL)`
        const insert = (n: number | null) => defer("INSERT INTO deferred_probe (n) VALUES ($1::integer)", [n])
        // Held back: the unit's own statements after it see nothing of it, its row comes last.
        const seenInside = yield* transaction(
          Effect.gen(function* () {
            yield* insert(1)
            yield* execute("INSERT INTO deferred_probe (n) VALUES ($1::integer)", [2])
            return yield* all
          })
        )
        const afterFirst = yield* all
        // A failed unit sends nothing it deferred.
        yield* transaction(Effect.zipRight(insert(3), Effect.fail("no"))).pipe(Effect.ignore)
        // Before a nested unit that rolls back: kept. Inside it: rolled back with it.
        yield* transaction(
          Effect.gen(function* () {
            yield* insert(4)
            yield* sql.withTransaction(Effect.zipRight(insert(5), Effect.fail("no"))).pipe(Effect.ignore)
          })
        )
        const afterSavepoint = yield* all
        // A deferred statement refused at COMMIT fails the unit and undoes its other writes.
        const refused = yield* transaction(
          Effect.gen(function* () {
            yield* execute("INSERT INTO deferred_probe (n) VALUES ($1::integer)", [6])
            yield* insert(null)
          })
        ).pipe(Effect.flip)
        return { seenInside, afterFirst, afterSavepoint, refused, afterRefused: yield* all }
      })
    )
    expect(outcome.seenInside).toBe("2")
    expect(outcome.afterFirst).toBe("2,1")
    expect(outcome.afterSavepoint).toBe("2,1,4")
    expect(outcome.refused).toBeInstanceOf(SqlError)
    expect(((outcome.refused as SqlError).cause as { code?: string }).code).toBe("23502")
    expect(outcome.afterRefused).toBe("2,1,4")
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
