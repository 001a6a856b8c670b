/**
 * `PgliteClient`'s one connection to PGlite: statements go in as wire-protocol batches
 * (`pgliteWire.ts`) and come back as PGlite's `Results`, with every value parsed by `pg`'s type
 * parsers. What `PGlite.query` and `PGlite.exec` would do, in fewer calls into PostgreSQL:
 *
 * - A statement with parameters is parsed once under a name and described then (its parameter
 *   types, its columns); every later run is one batch of Bind, Execute and Sync. As on the server's
 *   fast path (`preparedStatements.ts`), a connection names at most `MAX_NAMED` texts; past that a
 *   text is parsed again on every run, as an unnamed statement.
 * - A statement without parameters is a simple query, which may hold several statements.
 *
 * Prepared statements live as long as the connection, so they see what they saw when first run:
 * a table whose columns change under a `SELECT *` makes it fail ("cached plan must not change
 * result type"), and `DEALLOCATE` or `DISCARD ALL` would leave names here that PostgreSQL no
 * longer has. The same holds on the server's fast path; the repositories do neither.
 *
 * Their plans are made again every `REPLAN_EVERY_MS` (`DISCARD PLANS`, between transactions). On a
 * server, autovacuum's ANALYZE of a table that grew makes PostgreSQL plan its statements again;
 * PGlite has no autovacuum, so a plan made while a table was nearly empty stayed: the idempotency
 * claim, prepared when its table held nothing, scanned the whole table on every request, 660 µs
 * at 6,000 rows where an index lookup takes 80 (measured under `npm run bench`). Planning each run
 * again instead, as `PGlite.query` did, costs 80-110 µs a statement.
 *
 * PGlite's own query layer is bypassed, with what it does besides: it syncs the file system after
 * each statement outside a transaction of its own, which for the two file systems this client opens
 * (a directory through NODEFS, or memory) does nothing, and it hands NOTIFY payloads to its
 * `listen` callbacks, which nothing registers here.
 */
import type { PGlite, Results } from "@electric-sql/pglite"
import type * as Pg from "pg"
import {
  type Description,
  type Field,
  type RawResult,
  type Reply,
  readReply,
  type WireValue,
  Writer
} from "./pgliteWire.js"
import { MAX_NAMED } from "./preparedStatements.js"

/** Hands PostgreSQL one batch of frontend messages and resolves with its whole reply. */
export type Exchange = (batch: Uint8Array) => Promise<Uint8Array>

/**
 * PostgreSQL in this thread: the batch runs inside PGlite, its reply copied out as it is written.
 *
 * Outside PGlite's own query mutex, which cost 20-25 µs a statement (8 % of a `POST /contacts`):
 * a query made on the PGlite instance directly while the client is busy could run between the
 * messages of one of its own.
 *
 * Resolved a turn later although PGlite has run the batch before `execProtocolRawStream` returns.
 * Taken at once instead, a statement cost 14 % less CPU on `POST /contacts`, but a request then ran
 * from its first byte to its answer inside the socket's read callback: every turn of the event loop
 * grew to all the requests that were waiting, and new connections were accepted one per turn (64
 * over 1.5 s where it takes 30 ms), which put p99 at 0.7-1.5 s under `npm run bench`. That waits for
 * the server to start request fibers off the read callback.
 */
export const inProcess =
  (db: PGlite): Exchange =>
  async (batch) => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    await db.execProtocolRawStream(batch, {
      syncToFs: false,
      // A view of PostgreSQL's memory, valid only during the call.
      onRawData: (bytes) => {
        chunks.push(bytes.slice())
        size += bytes.length
      }
    })
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
  }

/** Distinct texts named per connection: the bound of the server's fast path. */
export { MAX_NAMED }

/** How old a plan may get: its statement is planned again, at its next run, after this (see the module comment). */
export const REPLAN_EVERY_MS = 1000

const BYTEA_OID = 17

export type RowMode = "object" | "array"

interface Prepared {
  /** "" past `MAX_NAMED`: then the batch that runs it parses it again. */
  readonly name: string
  readonly description: Description
}

/**
 * Parameters are made by `pg`'s `prepareValue` (text, a Buffer or null) and then serialised as
 * PGlite serialises them with `PgliteClient`'s serialisers: text goes through untouched, a Buffer
 * bound to bytea becomes its hex form, any other Buffer is read as UTF-8, which is what the server
 * makes of `pg`'s binary parameter for a text type.
 */
const wireValue = (value: string | Buffer | null, type: number | undefined): WireValue => {
  if (value === null) return null
  if (typeof value === "string") return value
  return type === BYTEA_OID ? `\\x${value.toString("hex")}` : value.toString()
}

/** PGlite's `Results` for one result set, every value parsed as `pg` parses it (`types`). */
const toResults = (raw: RawResult, rowMode: RowMode, types: Pg.CustomTypesConfig): Results => {
  const { fields } = raw
  // Looked up per result, as `pg` does when a RowDescription arrives, so that an override with
  // `setTypeParser` applies from the next statement on.
  const parsers = fields.map((field) => types.getTypeParser(field.dataTypeID, "text") as (text: string) => unknown)
  const width = fields.length
  const rows: Array<unknown> = new Array(raw.rows.length)
  if (rowMode === "array") {
    for (let r = 0; r < raw.rows.length; r++) {
      const text = raw.rows[r]!
      const row: Array<unknown> = new Array(width)
      for (let n = 0; n < width; n++) row[n] = text[n] === null ? null : parsers[n]!(text[n]!)
      rows[r] = row
    }
  } else {
    const names = fields.map((field) => field.name)
    // Assignment to "__proto__" would set the prototype; PGlite's rows (Object.fromEntries) define
    // it as an own property.
    const plain = !names.includes("__proto__")
    for (let r = 0; r < raw.rows.length; r++) {
      const text = raw.rows[r]!
      if (plain) {
        const row: Record<string, unknown> = {}
        for (let n = 0; n < width; n++) row[names[n]!] = text[n] === null ? null : parsers[n]!(text[n]!)
        rows[r] = row
      } else {
        rows[r] = Object.fromEntries(names.map((name, n) => [name, text[n] === null ? null : parsers[n]!(text[n]!)]))
      }
    }
  }
  const results: Results = {
    rows: rows as Results["rows"],
    fields: fields.map((field): Field => ({ name: field.name, dataTypeID: field.dataTypeID })),
    command: raw.command,
    affectedRows: raw.affectedRows
  }
  if (raw.rowCount !== undefined) results.rowCount = raw.rowCount
  return results
}

/** What PGlite gives for a text that completed no command (empty, or only comments). */
const noCommand = (): Results => ({ affectedRows: 0, rows: [], fields: [] })

export interface Session {
  /** One statement with parameters, or a script of any number without: a `Results` per statement. */
  readonly run: (sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode) => Promise<ReadonlyArray<Results>>
  /** Texts named so far. */
  readonly named: () => number
}

/**
 * `prepareValue` is `pg`'s own (`pg/lib/utils`), passed in so that this module has no
 * `createRequire` of its own. Statements may arrive concurrently (fibers sharing a transaction's
 * connection): every batch is self-contained, and a text prepared by two at once is prepared once.
 */
export const makeSession = (
  exchange: Exchange,
  types: Pg.CustomTypesConfig,
  prepareValue: (value: unknown) => string | Buffer | null
): Session => {
  const writer = new Writer()
  const prepared = new Map<string, Prepared>()
  const preparing = new Map<string, Promise<Prepared>>()
  let sequence = 0
  // The connection's transaction status after the last reply, and when plans were last dropped.
  let idle = true
  let plannedAt = performance.now()

  /** One batch there and its reply back, plans dropped first when they are due and no transaction is open. */
  const roundTrip = async (batch: Uint8Array, fields?: ReadonlyArray<Field>): Promise<Reply> => {
    if (idle && performance.now() - plannedAt >= REPLAN_EVERY_MS) {
      plannedAt = performance.now()
      // Outside a transaction it cannot fail; what it answers says nothing about the batch.
      await exchange(writer.query("DISCARD PLANS").take())
    }
    const reply = readReply(await exchange(batch), fields)
    idle = reply.status === "I"
    return reply
  }

  /** As PGlite's `makePGliteError` leaves it. */
  const failure = (error: Error, query: string, params: ReadonlyArray<unknown> | undefined, rowMode: RowMode) =>
    Object.assign(error, { query, params, queryOptions: { rowMode } })

  const describe = async (sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode): Promise<Prepared> => {
    // Counted by the statements that exist (a text that fails to parse leaves none); named from a
    // sequence, so that two texts prepared at once never share a name.
    const name = prepared.size + preparing.size < MAX_NAMED ? `crm_${(sequence++).toString(36)}` : ""
    const reply = await roundTrip(writer.parse(name, sql).describeStatement(name).sync().take())
    if (reply.error !== undefined) throw failure(reply.error, sql, params, rowMode)
    const statement: Prepared = { name, description: reply.description! }
    if (name !== "") prepared.set(sql, statement)
    return statement
  }

  const prepare = (sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode): Promise<Prepared> => {
    const pending = preparing.get(sql)
    if (pending !== undefined) return pending
    const made = describe(sql, params, rowMode).finally(() => preparing.delete(sql))
    preparing.set(sql, made)
    return made
  }

  const extended = async (sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode): Promise<Results> => {
    const values = params.map(prepareValue)
    const statement = prepared.get(sql) ?? (await prepare(sql, values, rowMode))
    const { parameterTypes, fields } = statement.description
    const wire = values.map((value, n) => wireValue(value, parameterTypes[n]))
    const { error, results } =
      statement.name === ""
        ? await roundTrip(writer.parse("", sql).bind("", wire).describePortal().execute().sync().take())
        : await roundTrip(writer.bind(statement.name, wire).execute().sync().take(), fields)
    if (error !== undefined) throw failure(error, sql, values, rowMode)
    const [result] = results
    return result === undefined ? noCommand() : toResults(result, rowMode, types)
  }

  const simple = async (sql: string, rowMode: RowMode): Promise<ReadonlyArray<Results>> => {
    const { error, results } = await roundTrip(writer.query(sql).take())
    if (error !== undefined) throw failure(error, sql, undefined, rowMode)
    return results.length === 0 ? [noCommand()] : results.map((raw) => toResults(raw, rowMode, types))
  }

  return {
    run: async (sql, params, rowMode) =>
      params.length === 0 ? simple(sql, rowMode) : [await extended(sql, params, rowMode)],
    named: () => prepared.size
  }
}
