/**
 * A table declared once, column by column: how a value is written (the cast after its placeholder;
 * JSON and arrays travel as text, `values.ts`) and how it is read back, checked against the core's
 * schema where the core has one (`storedValues.ts`). The row type the drivers hand over, the column
 * list of every select and insert, an insert's values and an update's assignments all come from the
 * one declaration and are matched by name, so no list of values has to line up with a list of
 * columns, and a column the record does not carry is a compile error.
 */
import type { Money, SchemaWalk } from "@crm/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { amount, customOf, exactNumber, iso, jsonOf, jsonValue, literalOf, type Timestamp } from "./storedValues.js"
import { json as jsonText, textArray } from "./values.js"

export interface Column<Stored, Read, Write = Read> {
  /** After the value's placeholder when written: `::uuid`, `::jsonb`; empty where the column's own type is meant. */
  readonly cast: string
  /** Read through this expression instead of as stored (`due_date::text`: the drivers parse a `date` into local time). */
  readonly readAs: string | undefined
  /** The value as the drivers hand it over, as the record holds it. */
  readonly read: (stored: Stored) => Read
  /** The record's value as the statement sends it. */
  readonly write: (value: Write) => unknown
}

/** What every column is (whatever it holds): the top of `Column`'s types. */
type AnyColumn = Column<never, unknown, never>

/** A column before it knows its name, which the checking readers put in their messages. */
export type Declared<C extends AnyColumn> = (name: string) => C

const same = <A>(value: A): A => value

const plain =
  <A>(cast: string, readCast?: string): Declared<Column<A, A>> =>
  (name) => ({ cast, readAs: readCast === undefined ? undefined : `${name}${readCast}`, read: same, write: same })

// `NoInfer`: a table's declaration would otherwise infer `never` for `A` from what it expects.
export const text = <A extends string = string>(): Declared<Column<NoInfer<A>, NoInfer<A>>> => plain<A>("")
export const uuid = <A extends string = string>(): Declared<Column<NoInfer<A>, NoInfer<A>>> => plain<A>("::uuid")
export const boolean = () => plain<boolean>("::boolean")
/** Read as its text (`YYYY-MM-DD`), never through a `Date`: the drivers parse a `date` into local time. */
export const date = () => plain<string>("::date", "::text")

export const integer = (): Declared<Column<number | string, number, number>> => () => ({
  cast: "::integer",
  readAs: undefined,
  read: Number,
  write: same
})

export const timestamp = (): Declared<Column<Timestamp, string, string>> => () => ({
  cast: "::timestamptz",
  readAs: undefined,
  read: iso,
  write: same
})

/** A money column, read as the `Amount` the records carry (`storedValues.amount`). */
export const money = (): Declared<Column<string | number, Money.Amount, Money.Amount>> => (name) => ({
  cast: "::numeric",
  readAs: undefined,
  read: (value) => amount(name, value),
  write: same
})

/** A `numeric` that is not money (a rate), read as an exact number (`storedValues.exactNumber`). */
export const exact = (): Declared<Column<string | number, number, number>> => (name) => ({
  cast: "::numeric",
  readAs: undefined,
  read: (value) => exactNumber(name, value),
  write: same
})

/** A text column holding one of the literals of a core enum, refused when it holds another. */
export const literal =
  <T extends string>(schema: { readonly options: ReadonlyArray<T> }): Declared<Column<string, T, T>> =>
  (name) => ({ cast: "", readAs: undefined, read: literalOf(name, schema), write: same })

/** A `text[]` column of the literals of a core enum. */
export const literals =
  <T extends string>(schema: {
    readonly options: ReadonlyArray<T>
  }): Declared<Column<ReadonlyArray<string>, ReadonlyArray<T>, ReadonlyArray<T>>> =>
  (name) => {
    const one = literalOf(name, schema)
    return { cast: "::text[]", readAs: undefined, read: (values) => values.map(one), write: textArray }
  }

export const texts = (): Declared<Column<ReadonlyArray<string>, ReadonlyArray<string>>> => () => ({
  cast: "::text[]",
  readAs: undefined,
  read: same,
  write: textArray
})

/**
 * A `jsonb` column holding what the core's `schema` describes, checked on the way out
 * (`storedValues.jsonOf`). `stored` leaves out what the record holds but the column does not;
 * `before` brings a document an older release (or `stored`) wrote up to the schema.
 */
export const json =
  <S extends SchemaWalk.Schema>(
    schema: S,
    options: {
      readonly before?: (document: unknown) => unknown
      readonly stored?: (value: SchemaWalk.Output<S>) => unknown
    } = {}
  ): Declared<Column<unknown, SchemaWalk.Output<S>, SchemaWalk.Output<S>>> =>
  (name) => {
    const { before, stored } = options
    const checked = jsonOf(name, schema)
    return {
      cast: "::jsonb",
      readAs: undefined,
      read: before === undefined ? checked : (value) => checked(before(jsonValue(value))),
      write: stored === undefined ? jsonText : (value) => jsonText(stored(value))
    }
  }

/** A record's free-form custom fields (`jsonb`; NULL reads as none). */
export const custom =
  (): Declared<Column<unknown, Record<string, unknown>, Readonly<Record<string, unknown>>>> => () => ({
    cast: "::jsonb",
    readAs: undefined,
    read: customOf,
    write: jsonText
  })

/** The column may be NULL: read and written as NULL, anything else as `declared` says. */
export const nullable =
  <S, R, W>(declared: Declared<Column<S, R, W>>): Declared<Column<S | null, R | null, W | null>> =>
  (name) => {
    const column = declared(name)
    return {
      cast: column.cast,
      readAs: column.readAs,
      // A value read or written as it is needs no test for NULL.
      read:
        column.read === same
          ? (same as (value: S | null) => R | null)
          : (value) => (value === null ? null : column.read(value)),
      write: column.write === same ? same : (value) => (value === null ? null : column.write(value))
    }
  }

/** A table's columns, by name. */
export type Columns = Readonly<Record<string, AnyColumn>>

/** A row as the drivers return it. */
export type RowOf<C extends Columns> = { readonly [K in keyof C]: Parameters<C[K]["read"]>[0] }

/** The row type of a table. */
export type RowOfTable<T> = T extends Table<infer C> ? RowOf<C> : never

/** A row's values as the records carry them. */
export type ReadOf<C extends Columns> = { readonly [K in keyof C]: ReturnType<C[K]["read"]> }

/** What a statement writes: a value for each column, by name. */
export type WriteOf<C extends Columns> = { readonly [K in keyof C]: Parameters<C[K]["write"]>[0] }

export interface Table<C extends Columns> {
  readonly name: string
  /** The columns as written, in the declaration's order: `id, first_name, ...`. */
  readonly list: string
  /** How many columns: the placeholders an insert's values take. */
  readonly width: number
  /** The columns as every query reads them (each `readAs` applied). */
  readonly selected: string
  /** A row's columns read by name. */
  readonly read: (row: RowOf<C>) => ReadOf<C>
  /** An insert's placeholders with their casts, in the order of `list`, numbered from `first`. */
  readonly placeholders: (first: number) => string
  /** An insert's values, in the order of `list`, for a statement whose text is made once (`placeholders`). */
  readonly values: (record: WriteOf<C>) => Array<unknown>
  /** `(list) VALUES (...)` of `record`, with `extra` columns after the table's own (an organisation). */
  readonly insert: (
    sql: SqlClient.SqlClient,
    record: WriteOf<C>,
    extra?: Readonly<Record<string, Statement.Fragment>>
  ) => Statement.Fragment
  /** `column = value, ...` of each column `changes` gives a value (NULL included) but those `kept`. */
  readonly assignments: (
    sql: SqlClient.SqlClient,
    changes: Partial<WriteOf<C>>,
    kept?: ReadonlyArray<string>
  ) => Statement.Fragment
}

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/

/**
 * A row's reader, written out as the object literal a hand-written reader would be: every row of
 * every page passes here, and a loop over the names (keyed reads and writes) cost four times as
 * much, measured (0.3 µs a contact row). The names are a declaration's keys, checked to be plain
 * column names before they become code; a column's own reader is called, never inlined.
 */
const readerOf = (
  table: string,
  names: ReadonlyArray<string>,
  columns: ReadonlyArray<Column<unknown, unknown, unknown>>
): ((row: unknown) => unknown) => {
  const odd = names.find((column) => !COLUMN_NAME.test(column))
  if (odd !== undefined) throw new Error(`${table}: ${JSON.stringify(odd)} is not a plain column name`)
  const fields = names.map((column, n) =>
    columns[n]!.read === same ? `${column}: row.${column}` : `${column}: read[${n}](row.${column})`
  )
  return new Function("read", `return (row) => ({ ${fields.join(", ")} })`)(columns.map((column) => column.read))
}

export const table = <D extends Readonly<Record<string, Declared<AnyColumn>>>>(
  name: string,
  declared: D
): Table<{ readonly [K in keyof D]: ReturnType<D[K]> }> => {
  type C = { readonly [K in keyof D]: ReturnType<D[K]> }
  const names = Object.keys(declared)
  const columns = names.map((column) => declared[column]!(column) as unknown as Column<unknown, unknown, unknown>)
  const list = names.join(", ")
  const written = (record: Readonly<Record<string, unknown>>, n: number) => columns[n]!.write(record[names[n]!])
  const valuesOf = (record: WriteOf<C>): Array<unknown> =>
    names.map((_, n) => written(record as Readonly<Record<string, unknown>>, n))
  const cast = (sql: SqlClient.SqlClient, value: unknown, n: number) =>
    columns[n]!.cast === "" ? sql`${value}` : sql`${value}${sql.literal(columns[n]!.cast)}`
  return {
    name,
    list,
    width: names.length,
    selected: names
      .map((column, n) => {
        const readAs = columns[n]!.readAs
        return readAs === undefined ? column : `${readAs} AS ${column}`
      })
      .join(", "),
    read: readerOf(name, names, columns) as (row: RowOf<C>) => ReadOf<C>,
    placeholders: (first) => columns.map((column, n) => `$${first + n}${column.cast}`).join(", "),
    values: valuesOf,
    insert: (sql, record, extra = {}) => {
      const values = valuesOf(record).map((value, n) => cast(sql, value, n))
      const more = Object.keys(extra)
      return sql`(${sql.literal([list, ...more].join(", "))}) VALUES (${sql.csv([...values, ...Object.values(extra)])})`
    },
    assignments: (sql, changes, kept = []) => {
      const given = changes as Readonly<Record<string, unknown>>
      return sql.csv(
        names.flatMap((column, n) =>
          given[column] === undefined || kept.includes(column)
            ? []
            : [sql`${sql(column)} = ${cast(sql, written(given, n), n)}`]
        )
      )
    }
  }
}

/** Prefixes each column of a list (`selected` or `list`) with a table's alias (`k.id`), for a join. */
export const qualified = (alias: string, columns: string): string =>
  columns
    .split(", ")
    .map((column) => `${alias}.${column}`)
    .join(", ")
