/**
 * An organisation's rows read out whole and written back (`Transfer.TransferStore`). A line is
 * `{"type": <table>, "row": <the row's columns as JSON>}`, made by PostgreSQL (`row_to_json`) and
 * read back by it (`json_populate_record`), so numbers, timestamps and json documents never pass
 * through JavaScript's numbers or key order. The columns are read from the catalogue, so a
 * migration that adds one carries it; a table that owns rows of an organisation and is missing
 * from `TABLES` fails `test/contract/transferTables.test.ts`.
 *
 * Left to the database on import: the ordering serials (`SERIAL`), which only order a table's rows;
 * rows are inserted in the order they were exported, so the new values order them the same.
 * Not exported: rate windows and idempotency records (short-lived, keyed by the API key), the
 * exchange rates, which every organisation shares, the organisation's people and audit trail
 * (`NOT_CARRIED`), and the MCP authorization server's records (`oauth_records`), which are the
 * server's: its clients, grants and tokens name no organisation.
 */
import { Errors, type Organisation, Transfer } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { isSqlError, sqlState, toStorageError } from "./internal/errors.js"
import { migrations } from "./Migrations.js"

interface Table {
  readonly name: string
  /** The order rows are written in: the key, or the serial that orders them. */
  readonly order: string
  /** A serial the database assigns again on import (left out of the line). */
  readonly serial?: string
  /** Columns written as null unless secrets are asked for; on import a null one gets a new secret. */
  readonly secrets?: ReadonlyArray<string>
  /** A table without `organisation_id`: the condition on `t` that keeps the organisation's rows. */
  readonly owned?: (organisation: string) => string
}

/** In an order that import can replay: what a foreign key names comes before what names it. */
export const TABLES: ReadonlyArray<Table> = [
  { name: "organisations", order: "t.id", owned: (o) => `t.id = ${o}` },
  { name: "api_keys", order: "t.id" },
  { name: "companies", order: "t.id" },
  { name: "contacts", order: "t.id" },
  { name: "deals", order: "t.id" },
  { name: "deal_stage_visits", order: "t.id", serial: "id" },
  { name: "tasks", order: "t.id" },
  { name: "products", order: "t.id" },
  { name: "stock_levels", order: "t.item_id" },
  { name: "stock_movements", order: "t.seq", serial: "seq" },
  { name: "custom_records", order: "t.id" },
  { name: "quotes", order: "t.id" },
  { name: "quote_revisions", order: "t.quote_id, t.revision" },
  { name: "invoices", order: "t.id" },
  { name: "payments", order: "t.recorded", serial: "recorded" },
  { name: "number_sequences", order: "t.series, t.year" },
  { name: "orders", order: "t.id" },
  { name: "returns", order: "t.id" },
  { name: "purchase_orders", order: "t.id" },
  { name: "tickets", order: "t.id" },
  { name: "survey_responses", order: "t.id" },
  { name: "calls", order: "t.id" },
  { name: "notes", order: "t.id" },
  { name: "form_submissions", order: "t.id" },
  { name: "visits", order: "t.id" },
  { name: "leads", order: "t.provider, t.external_id" },
  { name: "sites", order: "t.id" },
  { name: "site_pages", order: "t.id" },
  { name: "site_posts", order: "t.id" },
  { name: "booking_series", order: "t.id" },
  { name: "bookings", order: "t.id" },
  { name: "link_pages", order: "t.id" },
  { name: "mail_outbox", order: "t.id" },
  { name: "events", order: "t.id" },
  { name: "webhook_hooks", order: "t.id", secrets: ["secret", "previous_secret"] },
  { name: "webhook_deliveries", order: "t.id" },
  {
    name: "webhook_attempts",
    order: "t.id",
    serial: "id",
    owned: (o) => `t.delivery_id IN (SELECT id FROM webhook_deliveries WHERE organisation_id = ${o})`
  }
]

/**
 * The tables with an `organisation_id` an export leaves out on purpose. The people of a store are
 * not the organisation's data: an account is the store's (one person, one password, signing in to
 * every organisation they belong to there), so a membership would name an account the other store
 * does not have, and a pending invitation would let whoever holds its mailed link join there. The
 * audit trail records who did what through this store's accounts, sessions and keys, and stays
 * where that happened. The organisation arrives without people; the operator invites its owner
 * (`crm org invite`). Its keys do travel, `created_by` and all: an id no account there has, which
 * gives nobody a member's rights over the key. A connected app's key travels too, but not its
 * grant: no token of the other store's server names that grant, so the key lets nothing in there,
 * and the app connects again. The keys' read fences are positions in this store's history of
 * writes (`internal/standby.ts`), which mean nothing in another's.
 */
export const NOT_CARRIED: ReadonlyArray<string> = ["audit_log", "invitations", "memberships", "read_fences"]

const BY_NAME = new Map(TABLES.map((table) => [table.name, table]))

/** Lines per statement, either way: a page of an export, a batch of an import. */
const PAGE = 500
/** Text per import statement, so that a batch of large rows stays a bounded parameter. */
const BATCH_CHARS = 4 * 1024 * 1024

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`
/** The organisation as a literal: DECLARE takes no parameters, and the id is a checked uuid. */
const literal = (organisationId: string) => {
  if (!UUID.test(organisationId)) throw new Error(`not an organisation id: ${organisationId}`)
  return `'${organisationId}'::uuid`
}

/** The schema of the rows: the last migration's number. */
export const SCHEMA = Math.max(...Object.keys(migrations).map((name) => Number.parseInt(name, 10)))

/** The columns a line carries: all but the tenant (the file's organisation is the header's) and the serial. */
const carried = (table: Table, columns: ReadonlyArray<string>) =>
  columns.filter(
    (column) => column !== table.serial && (table.name === "organisations" || column !== "organisation_id")
  )

// Data the database refused (class 22: a value of the wrong form; 23: a key taken, a null, a
// check) is the file's fault and names its line; anything else is the store's.
const refusedByData = (error: SqlError) => /^2[23]/.test(sqlState(error) ?? "")

const messageOf = (error: SqlError): string => {
  const cause = error.cause as { readonly message?: unknown; readonly detail?: unknown } | undefined
  const message = typeof cause?.message === "string" ? cause.message : error.message
  return typeof cause?.detail === "string" ? `${message} (${cause.detail})` : message
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof Transfer.TransferStore>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = Effect.map(
    sql<{ table_name: string; column_name: string }>`SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    (rows) => {
      const byTable = new Map<string, Array<string>>()
      for (const row of rows) {
        const list = byTable.get(row.table_name) ?? []
        list.push(row.column_name)
        byTable.set(row.table_name, list)
      }
      return byTable
    }
  )

  const exportTable = (
    table: Table,
    all: ReadonlyArray<string>,
    organisation: string,
    options: Transfer.ExportOptions,
    emit: Transfer.Emit
  ) =>
    Effect.gen(function* () {
      const select = carried(table, all)
        .map((column) =>
          !options.includeSecrets && table.secrets?.includes(column) === true
            ? `NULL::text AS ${quoteIdent(column)}`
            : `t.${quoteIdent(column)}`
        )
        .join(", ")
      const where = table.owned?.(organisation) ?? `t.organisation_id = ${organisation}`
      const prefix = `{"type":${JSON.stringify(table.name)},"row":`
      yield* sql.unsafe(
        `DECLARE crm_transfer NO SCROLL CURSOR FOR SELECT row_to_json(r)::text AS row FROM (SELECT ${select} FROM ${quoteIdent(table.name)} t WHERE ${where} ORDER BY ${table.order}) r`
      )
      for (;;) {
        const rows = yield* sql.unsafe<{ row: string }>(`FETCH ${PAGE} FROM crm_transfer`)
        if (rows.length > 0) yield* emit(rows.map((row) => `${prefix}${row.row}}`))
        if (rows.length < PAGE) break
      }
      yield* sql.unsafe("CLOSE crm_transfer")
    })

  const insertText = (table: Table, all: ReadonlyArray<string>) => {
    const names = carried(table, all)
    const target = [
      ...names,
      ...(table.name === "organisations" ? [] : all.includes("organisation_id") ? ["organisation_id"] : [])
    ]
    const values = names.map((column) => {
      if (table.name === "organisations" && column === "id") return "$2::uuid"
      const value = `r.${quoteIdent(column)}`
      // A hook exported without its secret gets a new one: `whsec_` and 122 random bits.
      return column === "secret" && table.secrets?.includes(column) === true
        ? `COALESCE(${value}, 'whsec_' || replace(gen_random_uuid()::text, '-', ''))`
        : value
    })
    if (target.length > names.length) values.push("$2::uuid")
    const owned =
      table.name === "webhook_attempts"
        ? " WHERE r.delivery_id IN (SELECT id FROM webhook_deliveries WHERE organisation_id = $2::uuid)"
        : ""
    const conflict = table.name === "organisations" ? " ON CONFLICT (id) DO NOTHING" : ""
    return `INSERT INTO ${quoteIdent(table.name)} (${target.map(quoteIdent).join(", ")})
      SELECT ${values.join(", ")} FROM json_array_elements($1::json) WITH ORDINALITY AS l(item, n),
      json_populate_record(NULL::${quoteIdent(table.name)}, l.item -> 'row') AS r${owned} ORDER BY l.n${conflict} RETURNING 1 AS one`
  }

  // Event ids are the database's cursor: kept, with the sequence moved past them before they are
  // written, so that events appended meanwhile take later ids.
  const ADVANCE_EVENTS = `SELECT setval(s, m) FROM (SELECT pg_get_serial_sequence('events', 'id')::regclass AS s,
      (SELECT max((l -> 'row' ->> 'id')::bigint) FROM json_array_elements($1::json) AS l) AS m) x
    WHERE m > COALESCE(pg_sequence_last_value(s), 0)`

  return Transfer.TransferStore.of({
    kind: "postgres",
    schema: SCHEMA,

    exportItems: (organisationId, options, emit) =>
      Effect.gen(function* () {
        yield* sql.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        const [found] = yield* sql<{ one: number }>`SELECT 1 AS one FROM organisations WHERE id = ${organisationId}`
        if (found === undefined) return yield* new Errors.NotFound({ detail: "no such organisation" })
        const byTable = yield* columns
        const organisation = literal(organisationId)
        for (const table of TABLES) {
          yield* exportTable(table, byTable.get(table.name) ?? [], organisation, options, emit)
        }
      }).pipe(
        // One snapshot for the whole file, however long its reader takes.
        sql.withTransaction,
        Effect.catchIf(isSqlError, (error) => Effect.fail(toStorageError("TransferStore.exportItems")(error)))
      ),

    importItems: <E>(organisationId: Organisation.OrganisationId, items: Stream.Stream<Transfer.ItemLine, E>) =>
      Effect.gen(function* () {
        const byTable = yield* Effect.catchIf(columns, isSqlError, (error) =>
          Effect.fail(toStorageError("TransferStore.importItems")(error))
        )
        const statements = new Map<string, string>()
        const statementFor = (table: Table) => {
          let text = statements.get(table.name)
          if (text === undefined) {
            text = insertText(table, byTable.get(table.name) ?? [])
            statements.set(table.name, text)
          }
          return text
        }
        let first = true

        const check = (item: Transfer.ItemLine): Table | Errors.ImportFailed => {
          const table = BY_NAME.get(item.type)
          if (table === undefined)
            return Transfer.refusal(item.line, item.type, "unknown_type", "no table of that name")
          if (first !== (table.name === "organisations")) {
            return Transfer.refusal(item.line, item.type, "out_of_order", "the organisation comes first, and once")
          }
          first = false
          const row = item.value.row
          if (typeof row !== "object" || row === null || Array.isArray(row)) {
            return Transfer.refusal(item.line, item.type, "invalid_line", "row must be an object")
          }
          const known = carried(table, byTable.get(table.name) ?? [])
          const unknown = Object.keys(row).filter((key) => !known.includes(key))
          if (unknown.length > 0) {
            return Transfer.refusal(item.line, item.type, "invalid_line", `unknown columns: ${unknown.join(", ")}`)
          }
          if (table.name === "organisations" && (row as { id?: unknown }).id !== organisationId) {
            return Transfer.refusal(item.line, item.type, "invalid_line", "the organisation's id is not the header's")
          }
          return table
        }

        const insert = (table: Table, batch: ReadonlyArray<Transfer.ItemLine>) =>
          Effect.gen(function* () {
            const text = `[${batch.map((item) => item.text).join(",")}]`
            if (table.name === "events") yield* sql.unsafe(ADVANCE_EVENTS, [text])
            const rows = yield* sql.unsafe(statementFor(table), [text, organisationId])
            return rows.length
          })

        /** A batch in its own savepoint; refused, its lines one by one, to name the first bad one. */
        const write = (table: Table, batch: ReadonlyArray<Transfer.ItemLine>) =>
          Effect.gen(function* () {
            const tried = yield* Effect.either(sql.withTransaction(insert(table, batch)))
            if (tried._tag === "Right" && tried.right === batch.length) return
            if (tried._tag === "Right" && table.name === "organisations") {
              return yield* new Errors.OrganisationExists({
                detail: { organisation_id: organisationId, message: "the store already holds this organisation" }
              })
            }
            if (tried._tag === "Left" && !refusedByData(tried.left)) {
              return yield* Effect.fail(toStorageError("TransferStore.importItems")(tried.left))
            }
            for (const item of batch) {
              const one = yield* Effect.either(sql.withTransaction(insert(table, [item])))
              if (one._tag === "Left") {
                if (!refusedByData(one.left))
                  return yield* Effect.fail(toStorageError("TransferStore.importItems")(one.left))
                return yield* Transfer.refusal(item.line, item.type, "not_stored", messageOf(one.left))
              }
              if (one.right === 0) {
                return yield* Transfer.refusal(
                  item.line,
                  item.type,
                  "not_stored",
                  "its delivery is not the organisation's"
                )
              }
            }
            return yield* new Errors.StorageError({
              message: "TransferStore.importItems: a batch stored fewer rows than it had"
            })
          })

        // Consecutive lines of one table go out together, a page at a time.
        let pending: Array<Transfer.ItemLine> = []
        let pendingTable: Table | undefined
        let pendingChars = 0
        const flush = Effect.suspend(() => {
          if (pendingTable === undefined || pending.length === 0) return Effect.void
          const [table, batch] = [pendingTable, pending]
          pending = []
          pendingChars = 0
          return write(table, batch)
        })
        yield* Stream.runForEach(items, (item) =>
          Effect.gen(function* () {
            const table = check(item)
            if (table instanceof Errors.ImportFailed) return yield* table
            if (table !== pendingTable || pending.length >= PAGE || pendingChars + item.text.length > BATCH_CHARS) {
              yield* flush
              pendingTable = table
            }
            pending.push(item)
            pendingChars += item.text.length
          })
        )
        yield* flush
        if (first) return yield* Transfer.refusal(1, null, "invalid_line", "the file holds no organisation")
      })
  })
})

export const layer = Layer.effect(Transfer.TransferStore, make)
