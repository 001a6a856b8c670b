/**
 * The statements every plain resource table shares (contacts, companies, and later deals, tasks,
 * ...): one organisation's rows, where an archived row stays in the table but is never read or
 * changed again. A repository adds only its own columns and rules.
 */
import type { Errors, Organisation, Wire } from "@crm/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Columns, RowOf, Table, WriteOf } from "./columns.js"
import { orStorageError } from "./errors.js"
import { executeOn } from "./execute.js"
import { count, isoOrNull } from "./storedValues.js"
import { containsPattern } from "./values.js"

export interface LiveTable<C extends Columns, A, X extends object = object> {
  /** Its columns: read back by every query, written by `insert` and `update`. */
  readonly table: Table<C>
  /** Read beside the columns by every query, by name, e.g. what another table holds for the row. */
  readonly computed?: { readonly [K in keyof X]: string }
  /** The record of a row (`table.read`, or a record built around it). */
  readonly toRecord: (row: RowOf<C> & NoInfer<X>) => A
  /** The columns `q` looks into; none for a resource without text search. */
  readonly searchable?: ReadonlyArray<keyof C & string>
  /** Prefix of the operation named in storage errors, e.g. `ContactRepository`. */
  readonly repository: string
}

/** A `LiveTable`, its types taken from its table (so that `searchable` is checked against its columns). */
export const liveTable = <C extends Columns, A, X extends object = object>(
  spec: LiveTable<C, A, X>
): LiveTable<C, A, X> => spec

export interface LiveFilter {
  readonly updatedSince?: string
  readonly q?: string
}

/**
 * Part of a filter that an index reads as a range, not in list order (a stock band): its rows in
 * the index's order. Its `condition` must be answerable from the index alone, partial predicate
 * included, so that reading it in `order` reads nothing but its own rows.
 */
export interface IndexRange {
  readonly condition: Statement.Fragment
  /** The index's order after `organisation_id`, e.g. `COALESCE(stock, -1)`. */
  readonly order: string
}

/**
 * How many rows of a filter a list reads by its indexes before it stops and walks the list
 * instead. Below it, the matches are read and sorted, at most this many; above it, at least this
 * many rows in the organisation match, so a walk in list order meets a page's rows within
 * (page / matches) of the organisation, about 34,000 rows at a million. Either way a page's cost
 * is bounded, whatever the filter matches, where the planner's choice between the two, taken
 * from table-wide statistics, is wrong for an organisation whose values are not the table's.
 */
export const FEW = 1_500

/** What an update never rewrites, whatever record it is given. */
const KEPT = ["id", "created_at"]

/** How a repository runs a write statement, e.g. in a savepoint that turns a constraint into a domain error. */
export type Guard<E> = (write: Effect.Effect<void, SqlError>) => Effect.Effect<void, E | SqlError>

export interface LiveRecords<C extends Columns, A> {
  /** The rows the port can see, for a repository's own queries. */
  readonly whereLive: (organisationId: string) => Statement.Fragment
  /** The columns as every query reads them (`readAs` and `computed` applied), for a repository's own queries. */
  readonly selected: Statement.Fragment
  /** The record's columns, by name, in the organisation. */
  readonly insert: <E = never>(
    organisationId: string,
    record: WriteOf<C>,
    guard?: Guard<E>
  ) => Effect.Effect<void, Exclude<E, SqlError> | Errors.StorageError>
  readonly insertUnlessTaken: (
    conflict: string
  ) => (organisationId: string, record: WriteOf<C>) => Effect.Effect<boolean, Errors.StorageError>
  /** Sets the columns `changes` gives, by name (NULL included); never the key or the creation time. */
  readonly update: <E = never>(
    organisationId: string,
    id: string,
    changes: Partial<WriteOf<C>>,
    guard?: Guard<E>
  ) => Effect.Effect<void, Exclude<E, SqlError> | Errors.StorageError>
  readonly get: (organisationId: string, id: string) => Effect.Effect<Option.Option<A>, Errors.StorageError>
  readonly getForUpdate: (organisationId: string, id: string) => Effect.Effect<Option.Option<A>, Errors.StorageError>
  /**
   * The oldest live row meeting `condition` (a natural key: an email, a domain), for the upserts.
   * `unique`: a unique index holds at most one such row, so the statement asks for no order.
   */
  readonly findBy: (
    organisationId: string,
    condition: Statement.Fragment,
    method: string,
    unique: boolean
  ) => Effect.Effect<Option.Option<A>, Errors.StorageError>
  readonly archive: (organisationId: string, id: string, at: string) => Effect.Effect<boolean, Errors.StorageError>
  /**
   * `ranges`: when the repository's conditions hold a filter that its indexes read only as ranges
   * (`IndexRange`), those ranges, whose rows are the filter's.
   */
  readonly list: (
    organisationId: string,
    filter: LiveFilter,
    page: Wire.Page,
    conditions?: ReadonlyArray<Statement.Fragment>,
    ranges?: ReadonlyArray<IndexRange>
  ) => Effect.Effect<ReadonlyArray<A>, Errors.StorageError>
  readonly organisationOf: (
    id: string
  ) => Effect.Effect<Option.Option<Organisation.OrganisationId>, Errors.StorageError>
  readonly countLive: (organisationId: string) => Effect.Effect<number, Errors.StorageError>
}

export const make = <C extends Columns, A, X extends object = object>(
  sql: SqlClient.SqlClient,
  spec: LiveTable<C, A, X>
): LiveRecords<C, A> => {
  type Row = RowOf<C> & X
  const table = sql(spec.table.name)
  const computed = Object.entries<string>(spec.computed ?? {}).map(([name, expression]) => `, ${expression} AS ${name}`)
  const selectedText = spec.table.selected + computed.join("")
  const selected = sql.literal(selectedText)
  const live = (organisationId: string) => sql`organisation_id = ${organisationId}::uuid AND archived_at IS NULL`
  const one = (organisationId: string, id: string) => sql`${live(organisationId)} AND id = ${id}::uuid`
  const operation = (method: string) => orStorageError(`${spec.repository}.${method}`)
  const unguarded: Guard<never> = (write) => write
  const execute = executeOn(sql)

  // Made once per table and sent as it is (`execute.ts`): reading one record is the commonest
  // statement there is.
  const selectOne = (method: string, lock: "" | " FOR UPDATE") => {
    const text = `SELECT ${selectedText} FROM "${spec.table.name}"
      WHERE organisation_id = $1::uuid AND archived_at IS NULL AND id = $2::uuid${lock}`
    return (organisationId: string, id: string) =>
      execute<Row>(text, [organisationId, id]).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), spec.toRecord)),
        operation(method)
      )
  }

  return {
    /** The rows the port can see, for a repository's own queries. */
    whereLive: live,

    /** The columns as every query reads them (`readAs` and `computed` applied), for a repository's own queries. */
    selected,

    insert: <E = never>(organisationId: string, record: WriteOf<C>, guard: Guard<E> = unguarded) =>
      guard(
        Effect.asVoid(
          sql`INSERT INTO ${table} ${spec.table.insert(sql, record, { organisation_id: sql`${organisationId}::uuid` })}`
        )
      ).pipe(operation("insert")),

    /**
     * An insert a unique index may refuse, made once: `conflict` names the unique index's columns
     * and predicate. The insert answers `false` when the index refused it. `ON CONFLICT DO NOTHING`
     * leaves the caller's transaction usable (a violation would abort it), so no savepoint is
     * needed; it also waits for a concurrent holder to commit, so the caller can then read who
     * holds the value. Its text is sent as it is (`execute.ts`).
     */
    insertUnlessTaken: (conflict: string) => {
      const { list, values, width } = spec.table
      const placeholders = spec.table.placeholders(1)
      const organisation = `$${width + 1}::uuid`
      const text = `INSERT INTO "${spec.table.name}" (${list}, organisation_id)
        VALUES (${placeholders}, ${organisation})
        ON CONFLICT ${conflict} DO NOTHING RETURNING id`
      return (organisationId: string, record: WriteOf<C>) =>
        execute(text, [...values(record), organisationId]).pipe(
          Effect.map((rows) => rows.length > 0),
          operation("insert")
        )
    },

    /** Like the port: an archived or unknown id is left alone, without an error. */
    update: <E = never>(
      organisationId: string,
      id: string,
      changes: Partial<WriteOf<C>>,
      guard: Guard<E> = unguarded
    ) =>
      guard(
        Effect.asVoid(
          sql`UPDATE ${table} SET ${spec.table.assignments(sql, changes, KEPT)} WHERE ${one(organisationId, id)}`
        )
      ).pipe(operation("update")),

    get: selectOne("get", ""),

    /** Like `get`, and the row stays locked until the caller's transaction ends. */
    getForUpdate: selectOne("getForUpdate", " FOR UPDATE"),

    // An ORDER BY beside a unique key's condition would tempt the planner into walking the list
    // index (organisation, created_at) and filtering by the key: the whole organisation read for a
    // key that is not there yet, which is every upsert that creates (measured: docs/benchmarks.md).
    findBy: (organisationId: string, condition: Statement.Fragment, method: string, unique: boolean) =>
      sql<Row>`SELECT ${selected} FROM ${table} WHERE ${live(organisationId)} AND ${condition}
        ${unique ? sql.literal("") : sql.literal("ORDER BY created_at, id")} LIMIT 1`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), spec.toRecord)),
        operation(method)
      ),

    // Archiving is a change a sync client must see (`updated_since`, `order=updated_at`).
    archive: (organisationId: string, id: string, at: string) =>
      sql`UPDATE ${table} SET archived_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
        WHERE ${one(organisationId, id)} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        operation("archive")
      ),

    /**
     * `conditions` are the repository's own filters, ANDed with the shared ones and the page's sync
     * fields. A keyset page (`cursor`) starts after the cursor's row by a row comparison that the
     * indexes on (organisation_id, updated_at, id) and (organisation_id, created_at DESC, id DESC)
     * answer directly, so its cost does not grow with how deep the walk is.
     *
     * The filter indexes hold live rows in the default order. A filter read in another order (a
     * sync walk), one they read only as ranges (`ranges`), or one over archived rows too
     * (`include_archived`, whose archived rows are read in list order by migration 0033's index),
     * is first read by them, at most `FEW` rows of each: if that is all, the page is sorted from
     * the rows that match (the ids read again, their conditions checked again); if not, the list
     * is walked in its order with the filter as a plain check, which the planner cannot turn into
     * reading and sorting every match.
     */
    list: (
      organisationId: string,
      filter: LiveFilter,
      page: Wire.Page,
      conditions: ReadonlyArray<Statement.Fragment> = [],
      ranges?: ReadonlyArray<IndexRange>
    ) => {
      const pattern = filter.q === undefined ? undefined : containsPattern(filter.q)
      const archivedToo = page.include_archived === true
      const bySync = page.order === "updated_at"
      const after = page.cursor
      // The page's own conditions, on the columns that key a row (id, created_at, updated_at) alone.
      const keyed = [
        ...[filter.updatedSince, page.updated_since].flatMap((since) =>
          since === undefined ? [] : [sql`updated_at >= ${since}::timestamptz`]
        ),
        ...(after === undefined
          ? []
          : bySync
            ? [sql`(updated_at, id) > (${after.at}::timestamptz, ${after.id}::uuid)`]
            : [sql`(created_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`])
      ]
      const search =
        pattern === undefined
          ? []
          : [sql.or((spec.searchable ?? []).map((column) => sql`${sql(column)} ILIKE ${pattern} ESCAPE '\\'`))]
      const rest = [...keyed, ...search]
      const order = bySync ? sql.literal("updated_at, id") : sql.literal("created_at DESC, id DESC")
      // One row past the page tells the caller whether there is more, without a count query. Its
      // text depends on the filters, so it is compiled here and sent as compiled (`execute.ts`).
      const pageOf = (where: ReadonlyArray<Statement.Fragment>, offset = page.offset) => {
        const [text, params] = sql`SELECT ${selected}${archivedToo ? sql.literal(", archived_at") : sql.literal("")}
          FROM ${table} WHERE ${sql.and(where)}
          ORDER BY ${order} LIMIT ${page.limit + 1} OFFSET ${offset}`.compile()
        return execute<Row & { readonly archived_at?: Date | string | null }>(text, params).pipe(
          Effect.map((rows) =>
            archivedToo
              ? rows.map((row) => ({ ...spec.toRecord(row), archived_at: isoOrNull(row.archived_at ?? null) }))
              : rows.map(spec.toRecord)
          )
        )
      }
      const scope = archivedToo ? sql`organisation_id = ${organisationId}::uuid` : live(organisationId)
      const probes =
        conditions.length === 0
          ? undefined
          : (ranges ??
            (bySync || archivedToo
              ? [{ condition: sql.and(conditions), order: "created_at DESC, id DESC" }]
              : undefined))
      if (probes === undefined) return pageOf([scope, ...conditions, ...rest]).pipe(operation("list"))
      // Each row as its index read it, with what orders and keys it (its heap row is visited anyway).
      const reads = probes.map(
        (range) => sql`(SELECT id, created_at, updated_at FROM ${table}
          WHERE ${live(organisationId)} AND ${range.condition}
          ORDER BY ${sql.literal(range.order)} LIMIT ${FEW + 1})`
      )
      // The outer limit stops the ranges once one has told enough: later ones are then not read.
      const liveRows = sql`(SELECT id, created_at, updated_at, false AS archived, true AS hit
        FROM (${sql.join(" UNION ALL ", false)(reads)}) AS ranges LIMIT ${FEW + 1})`
      // Archived rows by the index of migration 0033, each checked against the filter as it is read.
      const archivedRows = sql`(SELECT id, created_at, updated_at, true AS archived,
          (${sql.and(conditions)}) IS TRUE AS hit
        FROM ${table} WHERE organisation_id = ${organisationId}::uuid AND archived_at IS NOT NULL
        ORDER BY created_at DESC, id DESC LIMIT ${FEW + 1})`
      // Without a search, the page's ids are sorted and cut from what the indexes read, so only
      // those are read again; a search needs the rows' text, so then every match is.
      const cut = search.length === 0
      const [text, params] = sql`WITH found AS MATERIALIZED (
          ${archivedToo ? sql`${liveRows} UNION ALL ${archivedRows}` : liveRows})
        SELECT count(*) FILTER (WHERE NOT archived) AS live, count(*) FILTER (WHERE archived) AS archived,
          array_to_string(ARRAY(SELECT id FROM found WHERE ${sql.and([sql`hit`, ...(cut ? keyed : [])])}
            ORDER BY ${order} LIMIT ${cut ? page.limit + 1 : null} OFFSET ${cut ? page.offset : 0}), ',') AS ids
        FROM found`.compile()
      return execute<{ readonly live: string | number; readonly archived: string | number; readonly ids: string }>(
        text,
        params
      ).pipe(
        Effect.flatMap(([counts]) => {
          if (Number(counts!.live) > FEW || Number(counts!.archived) > FEW) {
            return pageOf([scope, ...conditions.map((condition) => sql`(${condition}) IS TRUE`), ...rest])
          }
          return counts!.ids === ""
            ? Effect.succeed([])
            : pageOf(
                [scope, sql`id = ANY(${`{${counts!.ids}}`}::uuid[])`, ...conditions, ...rest],
                cut ? 0 : page.offset
              )
        }),
        operation("list")
      )
    },

    /** The organisation holding a live row with this id, for callers that know only the id. */
    organisationOf: (id: string) =>
      sql<{ organisation_id: Organisation.OrganisationId }>`SELECT organisation_id FROM ${table}
        WHERE id = ${id}::uuid AND archived_at IS NULL`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.organisation_id)),
        operation("organisationOf")
      ),

    countLive: (organisationId: string) =>
      sql<{ n: string }>`SELECT count(*) AS n FROM ${table} WHERE ${live(organisationId)}`.pipe(
        Effect.map(([row]) => count(row.n)),
        operation("countLive")
      )
  }
}
