/**
 * What a row holds, checked against the core's own schemas on the way out. A value the core does
 * not accept (a status written by hand or left by an old release, `NaN` in a money column)
 * is a storage fault, never a silently wrong record: the reader throws `StoredValueRefused`, which
 * `orStorageError` turns into a `StorageError` of the port operation that read the row.
 *
 * The readers throw rather than return an `Either` because they run inside `rows.map(...)` on every
 * row of every page: a throw costs nothing until it happens, an `Either` per row is an allocation
 * per row and a second pass over the page at each of the many call sites.
 */

import { Money, SchemaWalk, Wire } from "@crm/core"

/** A stored value the core's schema does not accept. Never leaves storage-pg: see `orStorageError`. */
export class StoredValueRefused extends Error {
  override readonly name = "StoredValueRefused"
}

/**
 * The reader of a text column holding one of the literals of a core enum (`schema`, e.g.
 * `Contacts.ContactStatus` or a record schema's `.shape.status`). Its set is made once, when the
 * module loads: a zod parse per row would be paid on every row of every page.
 */
export const literalOf = <T extends string>(
  column: string,
  schema: { readonly options: ReadonlyArray<T> }
): ((value: string) => T) => {
  const accepted: ReadonlySet<string> = new Set(schema.options)
  const isAccepted = (value: string): value is T => accepted.has(value)
  return (value) => {
    if (isAccepted(value)) return value
    throw new StoredValueRefused(
      `${column} holds ${JSON.stringify(value)}, which is not one of ${schema.options.join(", ")}`
    )
  }
}

/** A timestamptz as the drivers hand it over: ISO text (`types.ts`), or a `Date` from a driver left unconfigured. */
export type Timestamp = Date | string

/** PostgreSQL's text form (`2026-11-22 09:30:00.123+00`) is not one `Date` parses everywhere. */
const pgTimestamp = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?$/

/**
 * The shape of what `types.ts` reads a timestamptz into (and `Date.toISOString()` writes),
 * `YYYY-MM-DDTHH:MM:SS.sssZ`: told by its length and punctuation, not a regular expression, since
 * every timestamp of every page passes here (a regular expression was 1.3 % of a page of events).
 */
const isIsoTimestamp = (value: string): boolean =>
  value.length === 24 && value.charCodeAt(10) === 84 && value.charCodeAt(19) === 46 && value.charCodeAt(23) === 90

export const iso = (value: Timestamp): string => {
  if (value instanceof Date) return value.toISOString()
  if (isIsoTimestamp(value)) return value
  const parts = pgTimestamp.exec(value)
  const normalised = parts === null ? value : `${parts[1]}T${parts[2]}${parts[3]}:${parts[4] ?? "00"}`
  return new Date(normalised).toISOString()
}

export const isoOrNull = (value: Timestamp | null): string | null => (value === null ? null : iso(value))

export const jsonValue = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A

/** int8 arrives as a decimal string; a number or bigint only if a driver was left unconfigured. */
export const decimal = (value: string | number | bigint): string => String(value)

export const count = (value: string | number | bigint): number => Number(value)

/** `12.50` and `12.5`, `100.00` and `100` are the same decimal; PostgreSQL keeps the scale it was given. */
const withoutTrailingZeros = (text: string): string => {
  if (!text.includes(".")) return text
  let end = text.length
  while (text.charCodeAt(end - 1) === 48) end--
  if (text.charCodeAt(end - 1) === 46) end--
  return text.slice(0, end)
}

/**
 * A `numeric` column that is not money (a rate) as the number the records carry. The drivers hand it
 * over as its decimal text (`types.ts`); a number only if a driver was left unconfigured, and then
 * there is nothing left to check. A decimal that does not print back as itself from its double (more
 * digits than a double holds, NaN, infinity) is refused instead of rounded.
 */
export const exactNumber = (column: string, value: string | number): number => {
  const number = Number(value)
  if (typeof value === "number" && Number.isFinite(number)) return number
  if (Number.isFinite(number)) {
    const printed = String(number)
    if (printed === value || printed === withoutTrailingZeros(String(value))) return number
  }
  throw new StoredValueRefused(`${column} holds ${value}, which a JavaScript number does not carry exactly`)
}

/**
 * A money column as the `Amount` the records carry: its decimal text, every digit kept (`12.50` is
 * `12.5`). Only a `numeric` that is not a number at all (`NaN`) is refused.
 */
export const amount = (column: string, value: string | number): Money.Amount => {
  const read = typeof value === "number" ? Money.ofNumber(value) : Money.ofText(value)
  if (read !== undefined) return read
  throw new StoredValueRefused(`${column} holds ${value}, which is not an amount`)
}

type Check = (value: unknown) => boolean

const unchecked = (walked: SchemaWalk.Node): never => {
  throw new Error(`storage-pg has no check for a stored ${SchemaWalk.nameOf(walked)} schema`)
}

/**
 * A predicate for what `schema` accepts, made once from its definition: the shape and the types,
 * not the write-time checks (lengths, formats, ranges), so that a rule tightened later does not
 * make the documents written before it unreadable. Keys the schema does not name are left alone,
 * as `z.object` does. A kind of schema it does not know is a fault when the module loads, not a
 * document let through.
 */
const checkOf = SchemaWalk.fold<Check>({
  string: () => (value) => typeof value === "string",
  number: () => (value) => typeof value === "number",
  boolean: () => (value) => typeof value === "boolean",
  unknown: () => () => true,
  enum: ({ values }) => {
    const accepted: ReadonlySet<unknown> = new Set(values)
    return (value) => accepted.has(value)
  },
  nullable: ({ inner }, self) => {
    const check = self(inner)
    return (value) => value === null || check(value)
  },
  array: ({ element }, self) => {
    const check = self(element)
    return (value) => Array.isArray(value) && value.every(check)
  },
  union: ({ options }, self) => {
    const checks = options.map(self)
    return (value) => checks.some((check) => check(value))
  },
  record: (walked, self) => {
    if (SchemaWalk.node(walked.key).kind !== "string") return unchecked(walked)
    const entry = self(walked.value)
    return (value) => Wire.isPlainObject(value) && Object.values(value).every(entry)
  },
  pipe: (walked, self) => {
    // A codec field (money) holds its inside form, or the number a release before it wrote.
    if (walked.codec === undefined) return unchecked(walked)
    const written = self(walked.in)
    // The inside form's own check (an amount's text is canonical decimal), not just its type.
    const inside = walked.out
    return (value) => written(value) || SchemaWalk.accepts(inside, value)
  },
  object: ({ fields }, self) => {
    const checks = fields.map(({ key, schema }) => [key, self(schema)] as const)
    return (value) => Wire.isPlainObject(value) && checks.every(([key, check]) => check(value[key]))
  },
  otherwise: unchecked
})

/**
 * The reader of a JSON column holding what the core's `schema` describes (e.g. a record schema's
 * `.shape.items`), checked by a predicate made once from the schema: a zod parse per row would
 * build a second copy of every document of every page.
 */
export const jsonOf = <S extends SchemaWalk.Schema>(
  column: string,
  schema: S
): ((stored: unknown) => SchemaWalk.Output<S>) => {
  const accepts = checkOf(schema)
  const isAccepted = (value: unknown): value is SchemaWalk.Output<S> => accepts(value)
  const decode = Wire.storedDecoder(schema) ?? ((value: unknown) => value)
  return (stored) => {
    const value = typeof stored === "string" ? JSON.parse(stored) : stored
    if (isAccepted(value)) return decode(value) as SchemaWalk.Output<S>
    throw new StoredValueRefused(`${column} holds JSON that the core's schema does not accept`)
  }
}

const custom = jsonOf("custom", Wire.Custom)

/** A record's free-form custom fields: a NULL column reads as none. */
export const customOf = (value: unknown): Record<string, unknown> => (value === null ? {} : custom(value))
