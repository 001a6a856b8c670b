import { createRequire } from "node:module"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { messages, PGlite, protocol, type Results } from "@electric-sql/pglite"
import * as Pg from "pg"
import {
  type Exchange,
  inProcess,
  MAX_NAMED,
  makeSession,
  REPLAN_EVERY_MS,
  type Session
} from "../src/internal/pgliteSession.js"
import { readReply, Writer } from "../src/internal/pgliteWire.js"

const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as {
  readonly prepareValue: (value: unknown) => string | Buffer | null
}

let db: PGlite
let session: Session
/** Every batch the session sent, as its first message's type ("P", "B"...), a simple query with its text. */
const sent: Array<string> = []
const DISCARD = "Q DISCARD PLANS"

beforeAll(async () => {
  db = await PGlite.create()
  const exchange = inProcess(db)
  const counting: Exchange = (batch) => {
    const type = String.fromCharCode(batch[0]!)
    sent.push(type === "Q" ? `Q ${Buffer.from(batch.subarray(5, -1)).toString()}` : type)
    return exchange(batch)
  }
  session = makeSession(counting, Pg.types, prepareValue)
  await session.run("CREATE TABLE people (id int PRIMARY KEY, name text NOT NULL, photo bytea)", [], "object")
}, 60_000)

afterAll(() => db.close())

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** What PGlite's own query layer says of a result, values left aside (they are `pg`'s here). */
const shape = ({ rows, ...rest }: Results) => ({ ...rest, rows: rows.length })

describe("the session over PGlite's wire protocol", () => {
  it("prepares a text with parameters once and runs it with one batch afterwards", async () => {
    const text = "SELECT $1::int + 1 AS next"
    const before = session.named()
    sent.length = 0
    expect((await session.run(text, [1], "object"))[0]!.rows).toEqual([{ next: 2 }])
    expect((await session.run(text, [41], "object"))[0]!.rows).toEqual([{ next: 42 }])
    expect(sent.filter((batch) => batch !== DISCARD)).toEqual(["P", "B", "B"])
    expect(session.named()).toBe(before + 1)
  })

  it("describes results as PGlite's query and exec do: command, row counts, fields", async () => {
    await session.run("INSERT INTO people (id, name) VALUES (1, 'Ada'), (2, 'Alan')", [], "object")
    const statements: ReadonlyArray<readonly [string, ReadonlyArray<unknown>]> = [
      ["INSERT INTO people (id, name) VALUES ($1, $2), ($3, $4)", [3, "Grace", 4, "Edsger"]],
      ["UPDATE people SET name = name || $1 WHERE id >= $2", ["!", 1]],
      ["SELECT id, name FROM people WHERE id > $1 ORDER BY id", [0]],
      ["SELECT id FROM people WHERE id > $1", [100]],
      ["DELETE FROM people WHERE id = $1", [2]],
      [
        "INSERT INTO people (id, name) VALUES (5, 'Barbara'); SELECT count(*) AS n FROM people; UPDATE people SET name = name",
        []
      ],
      ["SELECT 1 AS one; SELECT 2 AS two", []],
      ["", []],
      ["-- nothing but a comment", []]
    ]
    // Each from the same state: run, then undone, by the session and then by PGlite itself.
    const undone = async <A>(run: () => Promise<A>): Promise<A> => {
      await db.exec("BEGIN")
      try {
        return await run()
      } finally {
        await db.exec("ROLLBACK")
      }
    }
    for (const [text, params] of statements) {
      const ours = await undone(() => session.run(text, params, "object"))
      const theirs = await undone(
        async (): Promise<ReadonlyArray<Results>> =>
          params.length === 0 ? db.exec(text) : [await db.query(text, [...params])]
      )
      expect(ours.map(shape), text).toStrictEqual(theirs.map(shape))
    }
  })

  it("parses values with pg's parsers, in object and array rows", async () => {
    const text =
      "SELECT 42::int8 AS big, '2024-01-02'::date AS day, '\\x0102'::bytea AS bin, NULL::text AS none, 'x' AS x"
    const [object] = await session.run(text, [], "object")
    expect(object!.rows).toStrictEqual([
      { big: "42", day: new Date(2024, 0, 2), bin: Buffer.from([1, 2]), none: null, x: "x" }
    ])
    const [array] = await session.run(`${text} WHERE $1::bool`, [true], "array")
    expect(array!.rows).toStrictEqual([["42", new Date(2024, 0, 2), Buffer.from([1, 2]), null, "x"]])
  })

  it("binds a Buffer to bytea in hex and to text as UTF-8, as the module says", async () => {
    await session.run(
      "INSERT INTO people (id, name, photo) VALUES ($1, $2, $3)",
      [10, Buffer.from("Grace"), Buffer.from([0, 255])],
      "object"
    )
    const [result] = await session.run("SELECT name, photo FROM people WHERE id = $1", [10], "object")
    expect(result!.rows).toStrictEqual([{ name: "Grace", photo: Buffer.from([0, 255]) }])
  })

  it("keeps a column named __proto__ as an own property, as PGlite's rows do", async () => {
    const [result] = await session.run(`SELECT $1::text AS "__proto__", 1 AS one`, ["x"], "object")
    const row = result!.rows[0] as Record<string, unknown>
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(row, "__proto__")?.value).toBe("x")
    expect(row.one).toBe(1)
  })

  it("fails with PGlite's DatabaseError, carrying the statement, and leaves a failed parse unnamed", async () => {
    const named = session.named()
    const syntax = await session.run("SELEC $1", [1], "object").then(
      () => undefined,
      (error: unknown) => error
    )
    expect(syntax).toBeInstanceOf(messages.DatabaseError)
    expect(syntax).toMatchObject({
      code: "42601",
      query: "SELEC $1",
      params: ["1"],
      queryOptions: { rowMode: "object" }
    })
    expect(session.named()).toBe(named)

    const duplicate = await session.run("INSERT INTO people (id, name) VALUES ($1, $2)", [1, "again"], "object").then(
      () => undefined,
      (error: unknown) => error
    )
    expect(duplicate).toMatchObject({ code: "23505", constraint: "people_pkey", table: "people", severity: "ERROR" })

    const script = await session.run("SELECT 1; SELECT 1/0", [], "array").then(
      () => undefined,
      (error: unknown) => error
    )
    expect(script).toMatchObject({ code: "22012", query: "SELECT 1; SELECT 1/0", params: undefined })
  })

  it("rolls back after a failure inside a transaction, the statement still prepared", async () => {
    const insert = "INSERT INTO people (id, name) VALUES ($1, $2)"
    await session.run("BEGIN", [], "object")
    await session.run(insert, [20, "Barbara"], "object")
    await expect(session.run(insert, [20, "twice"], "object")).rejects.toMatchObject({ code: "23505" })
    await expect(session.run(insert, [21, "after"], "object")).rejects.toMatchObject({ code: "25P02" })
    await session.run("ROLLBACK", [], "object")
    await session.run(insert, [21, "Edsger"], "object")
    const [result] = await session.run("SELECT name FROM people WHERE id >= $1 ORDER BY id", [20], "object")
    expect(result!.rows).toEqual([{ name: "Edsger" }])
  })

  it("prepares a text that two callers bring at once a single time", async () => {
    const text = "SELECT $1::int * 2 AS twice"
    const named = session.named()
    const results = await Promise.all([1, 2, 3].map((n) => session.run(text, [n], "object")))
    expect(results.map(([result]) => result!.rows)).toEqual([[{ twice: 2 }], [{ twice: 4 }], [{ twice: 6 }]])
    expect(session.named()).toBe(named + 1)
  })

  it("skips notices", async () => {
    const [, result] = await session.run("DO $$ BEGIN RAISE NOTICE 'hello'; END $$; SELECT 1 AS one", [], "object")
    expect(result!.rows).toEqual([{ one: 1 }])
  })

  it("drops its plans when they are due, between transactions only", async () => {
    const text = "SELECT $1::int AS n"
    await session.run(text, [1], "object")
    await sleep(REPLAN_EVERY_MS + 50)
    sent.length = 0
    await session.run("BEGIN", [], "object")
    await sleep(REPLAN_EVERY_MS + 50)
    await session.run(text, [2], "object")
    await session.run("COMMIT", [], "object")
    await session.run(text, [3], "object")
    expect(sent).toEqual([DISCARD, "Q BEGIN", "B", "Q COMMIT", DISCARD, "B"])
  }, 10_000)

  it("keeps a prepared statement's columns, as the server's fast path does: a changed table fails it", async () => {
    await session.run("CREATE TABLE shapes (id int)", [], "object")
    const text = "SELECT * FROM shapes WHERE id = $1"
    await session.run(text, [1], "object")
    await session.run("ALTER TABLE shapes ADD COLUMN side int", [], "object")
    await expect(session.run(text, [1], "object")).rejects.toMatchObject({ code: "0A000" })
  })
})

/** Another session needs a database of its own: statement names are the connection's. */
const onItsOwn = async (use: (own: PGlite) => Promise<void>) => {
  const own = await PGlite.create()
  try {
    await use(own)
  } finally {
    await own.close()
  }
}

describe("sessions on a database of their own", () => {
  it("plans a statement again once its plan is due: a table that grew is not scanned whole", async () => {
    await onItsOwn(async (own) => {
      const claims = makeSession(inProcess(own), Pg.types, prepareValue)
      await claims.run("CREATE TABLE claims (k text, v text, PRIMARY KEY (k, v))", [], "object")
      // Analysed empty, as a new store is, and planned once for all runs, as PostgreSQL does once a
      // generic plan is no dearer than a custom one.
      await claims.run("VACUUM ANALYZE claims", [], "object")
      await claims.run("SET plan_cache_mode = force_generic_plan", [], "object")
      const text = "SELECT v FROM claims WHERE k = $1 AND v = $2"
      await claims.run(text, ["k", "v"], "object")
      await claims.run(
        "INSERT INTO claims SELECT 'k' || n % 100, 'v' || n FROM generate_series(1, 20000) AS n",
        [],
        "object"
      )
      const plan = async () => {
        const [{ name }] = (await own.query<{ name: string }>("SELECT name FROM pg_prepared_statements")).rows as [
          { name: string }
        ]
        const { rows } = await own.query<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) EXECUTE ${name}('k1', 'v1')`)
        return rows[0]!["QUERY PLAN"]
      }
      expect(await plan()).toMatch(/^Seq Scan on claims/)
      await sleep(REPLAN_EVERY_MS + 50)
      await claims.run(text, ["k", "v"], "object")
      expect(await plan()).toMatch(/^Index Only Scan using claims_pkey/)
    })
  }, 60_000)

  it("looks parsers up for each result, so an override applies from the next statement on", async () => {
    const types = {
      getTypeParser: (oid: number, format?: "text" | "binary") =>
        oid === 23 ? (text: string) => `int:${text}` : Pg.types.getTypeParser(oid, format)
    } as Pg.CustomTypesConfig
    await onItsOwn(async (own) => {
      const other = makeSession(inProcess(own), types, prepareValue)
      expect((await other.run("SELECT $1::int AS n", [7], "object"))[0]!.rows).toEqual([{ n: "int:7" }])
    })
  }, 60_000)

  it("runs texts past the named ones as unnamed statements, parsed on every run", async () => {
    await onItsOwn(async (own) => {
      const fresh = makeSession(inProcess(own), Pg.types, prepareValue)
      for (let n = 0; n < MAX_NAMED; n++) await fresh.run(`SELECT $1::int + ${n} AS n`, [0], "object")
      expect(fresh.named()).toBe(MAX_NAMED)
      for (let run = 0; run < 2; run++) {
        const [result] = await fresh.run("SELECT $1::int - 1 AS n, $2::text AS t", [1, "x"], "object")
        expect(result!.rows).toEqual([{ n: 0, t: "x" }])
        expect(result!.fields).toEqual([
          { name: "n", dataTypeID: 23 },
          { name: "t", dataTypeID: 25 }
        ])
      }
      expect(fresh.named()).toBe(MAX_NAMED)
    })
  }, 60_000)
})

describe("the wire protocol", () => {
  it("writes the messages other than Bind byte for byte as PGlite's own serializer does", () => {
    const writer = new Writer()
    const { serialize } = protocol
    const cases: ReadonlyArray<readonly [Uint8Array, Uint8Array]> = [
      [writer.parse("crm_0", "SELECT $1 -- é").take(), serialize.parse({ name: "crm_0", text: "SELECT $1 -- é" })],
      [writer.describeStatement("crm_0").take(), serialize.describe({ type: "S", name: "crm_0" })],
      [writer.describePortal().take(), serialize.describe({ type: "P" })],
      [writer.execute().take(), serialize.execute({})],
      [writer.sync().take(), serialize.sync()],
      [writer.query("SELECT 'é'").take(), serialize.query("SELECT 'é'")]
    ]
    for (const [ours, theirs] of cases) expect(Buffer.from(ours)).toEqual(Buffer.from(theirs))
  })

  it("reads nothing out of an empty reply", () => {
    expect(readReply(new Uint8Array(0))).toEqual({ results: [], error: undefined, description: undefined })
  })
})
