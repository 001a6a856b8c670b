import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { expect, layer, type Vitest } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestServices from "effect/TestServices"
import * as Pg from "pg"
import { serverUrl } from "../../../test/support/pgDatabase.js"
import { executeOn, transactionOn } from "../src/internal/execute.js"
import * as PgliteClient from "../src/PgliteClient.js"

// A fresh PGlite takes seconds to start, so one instance serves every test;
// each test works in its own table, so sharing does not couple them.
const SLOW = { timeout: 30_000 }

/** A table private to the test, dropped when the test's scope closes. */
const table = (columns: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const name = `crm_pglite_test_${Math.random().toString(36).slice(2, 10)}`
    yield* Effect.acquireRelease(sql.unsafe(`CREATE TABLE ${name} (${columns})`), () =>
      Effect.orDie(sql.unsafe(`DROP TABLE IF EXISTS ${name}`))
    )
    return name
  })

const ids = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: number }>`SELECT id FROM ${sql(name)} ORDER BY id`).pipe(
    Effect.map((rows) => rows.map((row) => row.id))
  )

class Boom {
  readonly _tag = "Boom"
}

/** What must hold on every engine: run on PGlite, and on the server when DATABASE_URL is set. */
const contract = (it: Vitest.MethodsNonLive<SqlClient.SqlClient>) => {
  it.effect("binds parameters as $n placeholders, like the server client", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const statement = sql<{ n: number }>`SELECT n FROM generate_series(1, 5) AS n WHERE n IN ${sql.in([
        2, 4, 5
      ])} AND n < ${5} ORDER BY n`
      const [text, params] = statement.compile()
      expect(text).toBe("SELECT n FROM generate_series(1, 5) AS n WHERE n IN ($1,$2,$3) AND n < $4 ORDER BY n")
      expect(params).toEqual([2, 4, 5, 5])
      expect(yield* statement).toEqual([{ n: 2 }, { n: 4 }])
      expect(yield* sql`SELECT ${"it's"}::text AS quoted, ${null}::int AS nothing`.values).toEqual([["it's", null]])
    })
  )

  it.scoped("inserts records with sql.insert", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const t = yield* table("id serial PRIMARY KEY, name text NOT NULL, qty int NOT NULL")
      const inserted = yield* sql`INSERT INTO ${sql(t)} ${sql.insert([
        { name: "a", qty: 1 },
        { name: "b", qty: 2 }
      ])} RETURNING id, name, qty`
      expect(inserted).toEqual([
        { id: 1, name: "a", qty: 1 },
        { id: 2, name: "b", qty: 2 }
      ])
      const updated = yield* sql`UPDATE ${sql(t)} SET ${sql.update({ qty: 5 })} WHERE id = ${2} RETURNING qty`
      expect(updated).toEqual([{ qty: 5 }])
    })
  )

  it.scoped("runs a parameterless script with several statements, one row array each", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql.unsafe("SELECT 1 AS a; SELECT 2 AS b")).toEqual([[{ a: 1 }], [{ b: 2 }]])
      const t = yield* table("id int")
      yield* sql.unsafe(`INSERT INTO ${t} VALUES (1); INSERT INTO ${t} VALUES (2)`)
      expect(yield* ids(t)).toEqual([1, 2])
    })
  )

  it.effect("streams rows", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* Stream.runCollect(sql<{ n: number }>`SELECT n FROM generate_series(1, 300) AS n`.stream)
      expect(Chunk.size(rows)).toBe(300)
      expect(Chunk.unsafeLast(rows)).toEqual({ n: 300 })
    })
  )

  it.scoped("commits a transaction", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const t = yield* table("id int PRIMARY KEY")
      yield* sql.withTransaction(
        Effect.zipRight(sql`INSERT INTO ${sql(t)} VALUES (1)`, sql`INSERT INTO ${sql(t)} VALUES (2)`)
      )
      expect(yield* ids(t)).toEqual([1, 2])
    })
  )

  it.scoped("rolls a failed transaction back", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const t = yield* table("id int PRIMARY KEY")
      const error = yield* sql
        .withTransaction(Effect.zipRight(sql`INSERT INTO ${sql(t)} VALUES (1)`, Effect.fail(new Boom())))
        .pipe(Effect.flip)
      expect(error).toBeInstanceOf(Boom)
      expect(yield* ids(t)).toEqual([])
    })
  )

  it.scoped("rolls a nested transaction back to its savepoint and keeps the outer work", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const t = yield* table("id int PRIMARY KEY")
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`INSERT INTO ${sql(t)} VALUES (1)`
          const inner = yield* sql
            .withTransaction(Effect.zipRight(sql`INSERT INTO ${sql(t)} VALUES (2)`, Effect.fail(new Boom())))
            .pipe(Effect.flip)
          expect(inner).toBeInstanceOf(Boom)
          yield* sql.withTransaction(sql`INSERT INTO ${sql(t)} VALUES (3)`)
          expect(yield* ids(t)).toEqual([1, 3])
        })
      )
      expect(yield* ids(t)).toEqual([1, 3])
    })
  )

  it.scoped(
    "loses no update under SELECT ... FOR UPDATE from 50 concurrent transactions",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const t = yield* table("id int PRIMARY KEY, n int NOT NULL")
        yield* sql`INSERT INTO ${sql(t)} (id, n) VALUES (1, 0)`
        const increment = sql.withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql<{ n: number }>`SELECT n FROM ${sql(t)} WHERE id = 1 FOR UPDATE`
            // Give other fibers every chance to interleave between read and write.
            yield* Effect.yieldNow()
            yield* sql`UPDATE ${sql(t)} SET n = ${row!.n + 1} WHERE id = 1`
          })
        )
        yield* Effect.all(
          Array.from({ length: 50 }, () => increment),
          { concurrency: "unbounded", discard: true }
        )
        expect(yield* sql`SELECT n FROM ${sql(t)} WHERE id = 1`).toEqual([{ n: 50 }])
      }),
    SLOW
  )

  it.scoped(
    "keeps exactly the committed work of 50 concurrent mixed transactions",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const t = yield* table("id int PRIMARY KEY")
        const insert = (id: number) => sql`INSERT INTO ${sql(t)} VALUES (${id})`
        const expected: Array<number> = []
        const work = Array.from({ length: 50 }, (_, i) => {
          switch (i % 5) {
            case 0:
              expected.push(i)
              return sql.withTransaction(insert(i))
            case 1:
              return sql.withTransaction(Effect.zipRight(insert(i), Effect.fail(new Boom()))).pipe(Effect.ignore)
            case 2:
              expected.push(i)
              return sql.withTransaction(
                Effect.gen(function* () {
                  yield* insert(i)
                  yield* sql
                    .withTransaction(Effect.zipRight(insert(1000 + i), Effect.fail(new Boom())))
                    .pipe(Effect.ignore)
                })
              )
            case 3:
              return Effect.asVoid(sql`SELECT count(*) FROM ${sql(t)}`)
            default:
              expected.push(i, 1000 + i)
              return sql.withTransaction(Effect.zipRight(insert(i), sql.withTransaction(insert(1000 + i))))
          }
        })
        yield* Effect.all(work, { concurrency: "unbounded", discard: true })
        expect(yield* ids(t)).toEqual(expected.sort((a, b) => a - b))
      }),
    SLOW
  )

  it.effect("returns values typed as the pg driver types them", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<Record<string, unknown>>`SELECT
        9007199254740993::int8 AS big, 42::int8 AS small, ARRAY[1, 2]::int8[] AS bigs,
        1.50::numeric AS num, ARRAY[1.5]::numeric[] AS nums, 7::int4 AS int, 2.5::float8 AS float,
        '2024-01-02 03:04:05.123+02'::timestamptz AS tstz,
        '2024-01-02 03:04:05'::timestamp AS ts, '2024-01-02'::date AS day,
        '{"a": [1, 2], "b": null}'::jsonb AS jsonb, '[1, "x"]'::json AS json,
        true AS yes, '\\x0102'::bytea AS bin, '1 day 02:00:00'::interval AS span,
        'b4f2e1c0-0d4e-4a8e-9a7a-2f6c1d2e3f40'::uuid AS id, ARRAY['a', 'b'] AS texts,
        ARRAY['a', 'b']::name[] AS names`
      const { span, ...rest } = row!
      expect(rest).toStrictEqual({
        big: "9007199254740993",
        small: "42",
        bigs: ["1", "2"],
        num: "1.50",
        nums: [1.5],
        int: 7,
        float: 2.5,
        tstz: new Date("2024-01-02T01:04:05.123Z"),
        // pg reads a timestamp without time zone, and a date, as local time.
        ts: new Date(2024, 0, 2, 3, 4, 5),
        day: new Date(2024, 0, 2),
        jsonb: { a: [1, 2], b: null },
        json: [1, "x"],
        yes: true,
        bin: Buffer.from([1, 2]),
        id: "b4f2e1c0-0d4e-4a8e-9a7a-2f6c1d2e3f40",
        texts: ["a", "b"],
        // pg has no parser for name[].
        names: "{a,b}"
      })
      expect(span).toStrictEqual(Pg.types.getTypeParser(1186, "text")("1 day 02:00:00"))
    })
  )

  it.effect("binds parameters as the pg driver binds them", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const when = new Date("2024-05-06T07:08:09.123Z")
      const [row] = yield* sql<Record<string, unknown>>`SELECT
        ${when}::timestamptz AS tstz, ${when}::text AS when_text,
        ${[1, 2, 3]}::int[] AS ints, ${{ a: [1] }}::jsonb AS obj, ${{ a: 1 }}::text AS obj_text,
        ${true}::bool AS yes, ${10n}::int8 AS big, ${Buffer.from([1, 2])}::bytea AS bin,
        ${"\\x0304"}::bytea AS bin_text`
      const { when_text, ...rest } = row!
      expect(rest).toStrictEqual({
        tstz: when,
        ints: [1, 2, 3],
        obj: { a: [1] },
        obj_text: '{"a":1}',
        yes: true,
        big: "10",
        bin: Buffer.from([1, 2]),
        bin_text: Buffer.from([3, 4])
      })
      // pg sends a Date as local time with its offset.
      expect(new Date(when_text as string).getTime()).toBe(when.getTime())
      // pg turns a JS array into a PostgreSQL array literal, which is not JSON.
      const error = yield* Effect.flip(sql`SELECT ${[1, 2]}::jsonb AS list`)
      expect((error.cause as { code?: unknown }).code).toBe("22P02")
    })
  )

  it.scoped("fails with a SqlError whose cause carries the PostgreSQL error code", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const t = yield* table("email text PRIMARY KEY")
      yield* sql`INSERT INTO ${sql(t)} (email) VALUES (${"a@example.com"})`
      const error = yield* Effect.flip(sql`INSERT INTO ${sql(t)} (email) VALUES (${"a@example.com"})`)
      expect(error).toBeInstanceOf(SqlError)
      expect((error.cause as { code?: unknown }).code).toBe("23505")
      expect((error.cause as { constraint?: unknown }).constraint).toBe(`${t}_pkey`)
      // Inside a transaction the failure rolls the transaction back.
      const inTx = yield* sql
        .withTransaction(
          Effect.zipRight(
            sql`INSERT INTO ${sql(t)} (email) VALUES (${"b@example.com"})`,
            sql`INSERT INTO ${sql(t)} (email) VALUES (${"a@example.com"})`
          )
        )
        .pipe(Effect.flip)
      expect((inTx.cause as { code?: unknown }).code).toBe("23505")
      expect(yield* sql`SELECT email FROM ${sql(t)}`).toEqual([{ email: "a@example.com" }])
    })
  )
}

/** The path the repositories' hottest statements and units of work take (`internal/execute.ts`), and a table of the test's. */
interface FastPathTools {
  readonly sql: SqlClient.SqlClient
  readonly execute: ReturnType<typeof executeOn>
  readonly transaction: ReturnType<typeof transactionOn>
  readonly t: string
}

const onFastPath = <A, E, R>(columns: string, body: (path: FastPathTools) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* body({ sql, execute: executeOn(sql), transaction: transactionOn(sql), t: yield* table(columns) })
  })

layer(PgliteClient.layer(), { timeout: "60 seconds" })("PgliteClient", (it) => {
  contract(it)

  const itOnFastPath = (
    name: string,
    columns: string,
    body: (path: FastPathTools) => Effect.Effect<unknown, unknown, SqlClient.SqlClient | Scope.Scope>
  ) => it.scoped(name, () => onFastPath(columns, body), SLOW)

  it.scoped("makes statements of other fibers wait until a transaction ends", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const t = yield* table("id int")
      const inside = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const transaction = yield* Effect.fork(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO ${sql(t)} VALUES (1)`
            yield* Deferred.succeed(inside, undefined)
            yield* Deferred.await(gate)
          })
        )
      )
      yield* Deferred.await(inside)
      const reader = yield* Effect.fork(sql<{ count: string }>`SELECT count(*) AS count FROM ${sql(t)}`)
      yield* TestServices.provideLive(Effect.sleep("100 millis"))
      expect(yield* Fiber.poll(reader)).toEqual(Option.none())
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(transaction)
      // Without the lock the reader would have run inside the open transaction's
      // window and, under READ COMMITTED, counted 0.
      expect(yield* Fiber.join(reader)).toEqual([{ count: "1" }])
    })
  )

  // Through `@effect/sql`, and through the fast path (`internal/execute.ts`) as the repositories' hottest statements go.
  const paths = {
    "@effect/sql": (sql: SqlClient.SqlClient) => ({
      transaction: sql.withTransaction,
      insert: (t: string, i: number) => sql`INSERT INTO ${sql(t)} VALUES (${i})`,
      select: (i: number) => sql`SELECT ${i}::int AS i`
    }),
    "the fast path": (sql: SqlClient.SqlClient) => {
      const execute = executeOn(sql)
      return {
        transaction: transactionOn(sql),
        insert: (t: string, i: number) => execute(`INSERT INTO ${t} VALUES ($1::int)`, [i]),
        select: (i: number) => execute("SELECT $1::int AS i", [i])
      }
    }
  }

  for (const [name, pathOf] of Object.entries(paths)) {
    it.scoped(
      `hands the lock on when waiting fibers are interrupted (${name})`,
      () =>
        Effect.gen(function* () {
          const { transaction, insert, select } = pathOf(yield* SqlClient.SqlClient)
          const t = yield* table("id int")
          const gate = yield* Deferred.make<void>()
          const inside = yield* Deferred.make<void>()
          const holder = yield* Effect.fork(
            transaction(Effect.zipRight(Deferred.succeed(inside, undefined), Deferred.await(gate)))
          )
          yield* Deferred.await(inside)
          const waiters = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) => Effect.fork(insert(t, i))
          )
          yield* Effect.yieldNow()
          yield* Effect.forEach(
            waiters.filter((_, i) => i % 2 === 0),
            Fiber.interrupt,
            { discard: true }
          )
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.join(holder)
          yield* Effect.forEach(
            waiters.filter((_, i) => i % 2 === 1),
            Fiber.join,
            { discard: true }
          )
          expect(yield* ids(t)).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19])

          // Interruptions racing the hand-over (timeouts of about the length of a
          // statement) must not strand the lock either.
          yield* TestServices.provideLive(
            Effect.all(
              Array.from({ length: 200 }, (_, i) => Effect.ignore(Effect.timeout(select(i), "1 millis"))),
              { concurrency: "unbounded", discard: true }
            )
          )
          const after = yield* TestServices.provideLive(Effect.timeout(select(1), "5 seconds"))
          expect(after).toEqual([{ i: 1 }])
        }),
      SLOW
    )
  }

  it.effect(
    "passes the lock on when a fiber is interrupted just as the lock is handed to it",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const reserved = yield* Scope.make()
        yield* Scope.extend(sql.reserve, reserved)
        const waiter = yield* Effect.fork(sql`SELECT 1`)
        yield* Effect.yieldNow()
        // In one synchronous step: the lock goes to the waiter, then the waiter
        // is interrupted before it has run again.
        yield* Effect.sync(() => {
          Effect.runSync(Scope.close(reserved, Exit.void))
          waiter.unsafeInterruptAsFork(FiberId.none)
        })
        yield* Fiber.await(waiter)
        const after = yield* TestServices.provideLive(Effect.timeout(sql`SELECT 1 AS ok`, "5 seconds"))
        expect(after).toEqual([{ ok: 1 }])
      }),
    SLOW
  )

  itOnFastPath(
    "runs the fast path's statements in its unit of work, rolls the unit back whole, keeps a savepoint's outer work",
    "id int",
    ({ sql, execute, transaction, t }) =>
      Effect.gen(function* () {
        const seenInside = yield* transaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO ${sql(t)} VALUES (1)`
            yield* execute(`INSERT INTO ${t} VALUES ($1::int)`, [2])
            return yield* Effect.fail(
              yield* execute<{ n: string }>(`SELECT count(*) AS n FROM ${t} WHERE id > $1`, [0])
            )
          })
        ).pipe(Effect.flip)
        expect(seenInside).toEqual([{ n: "2" }])
        expect(yield* ids(t)).toEqual([])
        yield* transaction(
          Effect.gen(function* () {
            yield* execute(`INSERT INTO ${t} VALUES ($1::int)`, [3])
            yield* transaction(
              Effect.zipRight(execute(`INSERT INTO ${t} VALUES ($1::int)`, [4]), Effect.fail(new Boom()))
            ).pipe(Effect.ignore)
          })
        )
        expect(yield* ids(t)).toEqual([3])
      })
  )

  itOnFastPath(
    "fails the fast path's unit with the SqlError of a refused COMMIT, not a defect, and keeps none of it",
    "id int, CONSTRAINT one_each UNIQUE (id) DEFERRABLE INITIALLY DEFERRED",
    ({ execute, transaction, t }) =>
      Effect.gen(function* () {
        const insert = execute(`INSERT INTO ${t} VALUES ($1::int)`, [1])
        const refused = yield* transaction(Effect.zipRight(insert, insert)).pipe(Effect.flip)
        expect(refused).toBeInstanceOf(SqlError)
        expect((refused.cause as { code?: string }).code).toBe("23505")
        expect(yield* ids(t)).toEqual([])
        yield* insert
        expect(yield* ids(t)).toEqual([1])
      })
  )

  itOnFastPath(
    "makes statements of both paths wait until the fast path's unit ends",
    "id int",
    ({ sql, execute, transaction, t }) =>
      Effect.gen(function* () {
        const inside = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const holder = yield* Effect.fork(
          transaction(
            Effect.gen(function* () {
              yield* execute(`INSERT INTO ${t} VALUES ($1::int)`, [1])
              yield* Deferred.succeed(inside, undefined)
              yield* Deferred.await(gate)
            })
          )
        )
        yield* Deferred.await(inside)
        const readers = yield* Effect.all([
          Effect.fork(execute(`SELECT count(*) AS count FROM ${t} WHERE id > $1`, [0])),
          Effect.fork(sql<{ count: string }>`SELECT count(*) AS count FROM ${sql(t)}`)
        ])
        yield* TestServices.provideLive(Effect.sleep("100 millis"))
        for (const reader of readers) expect(yield* Fiber.poll(reader)).toEqual(Option.none())
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(holder)
        // Under READ COMMITTED a reader let in during the unit would have counted 0.
        for (const reader of readers) expect(yield* Fiber.join(reader)).toEqual([{ count: "1" }])
      })
  )

  it.scoped(
    "dumps the data directory and loads it into a new instance",
    () =>
      Effect.gen(function* () {
        const client = yield* PgliteClient.PgliteClient
        const t = yield* table("id int PRIMARY KEY")
        yield* client`INSERT INTO ${client(t)} VALUES (1), (2)`

        const inTx = yield* client.withTransaction(PgliteClient.dumpDataDir(client)).pipe(Effect.flip)
        expect(inTx.message).toContain("inside one of its own transactions")

        const tarball = yield* PgliteClient.dumpDataDir(client)
        const copy = yield* Effect.scoped(
          Effect.gen(function* () {
            const other = yield* PgliteClient.make({ loadDataDir: tarball })
            yield* other`INSERT INTO ${other(t)} VALUES (3)`
            const rows = yield* other<{ id: number }>`SELECT id FROM ${other(t)} ORDER BY id`
            return { ids: rows.map((row) => row.id), pglite: other.pglite }
          })
        )
        expect(copy.ids).toEqual([1, 2, 3])
        expect(copy.pglite.closed).toBe(true)
        // The copy is independent of the original.
        expect(yield* ids(t)).toEqual([1, 2])
      }),
    SLOW
  )
})

if (serverUrl !== undefined) {
  layer(PgClient.layer({ url: Redacted.make(serverUrl) }), { timeout: "30 seconds" })(
    "PostgreSQL server (DATABASE_URL)",
    (it) => contract(it)
  )
}
