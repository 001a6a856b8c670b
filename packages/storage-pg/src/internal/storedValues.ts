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

import { Money, Wire } from "@crm/core"

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

/** `literalOf` for a nullable column. */
export const literalOrNullOf = <T extends string>(
  column: string,
  schema: { readonly options: ReadonlyArray<T> }
): ((value: string | null) => T | null) => {
  const literal = literalOf(column, schema)
  return (value) => (value === null ? null : literal(value))
}

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

/** `amount` for a nullable column. */
export const amountOrNull = (column: string, value: string | number | null): Money.Amount | null =>
  value === null ? null : amount(column, value)

/** `exactNumber` for a nullable column. */
export const exactNumberOrNull = (column: string, value: string | number | null): number | null =>
  value === null ? null : exactNumber(column, value)

/**
 * The part of a zod schema a checker reads: `_zod.def`, the definition zod 4 keeps for tools that
 * walk schemas (storage-pg may not import zod itself, only receive the core's schemas).
 */
interface Walkable {
  readonly _zod: { readonly def: { readonly type: string } }
}

type Output<S> = S extends { readonly _zod: { readonly output: infer A } } ? A : never

type Check = (value: unknown) => boolean

/**
 * A predicate for what `schema` accepts, made once from its definition: the shape and the types,
 * not the write-time checks (lengths, formats, ranges), so that a rule tightened later does not
 * make the documents written before it unreadable. Keys the schema does not name are left alone,
 * as `z.object` does. A kind of schema it does not know is a fault when the module loads, not a
 * document let through.
 */
const checkOf = (schema: Walkable): Check => {
  const def = schema._zod.def as { readonly type: string } & Readonly<Record<string, unknown>>
  switch (def.type) {
    case "string":
      return (value) => typeof value === "string"
    case "number":
      return (value) => typeof value === "number"
    case "boolean":
      return (value) => typeof value === "boolean"
    case "unknown":
      return () => true
    case "enum": {
      const accepted: ReadonlySet<unknown> = new Set(Object.values(def.entries as Readonly<Record<string, unknown>>))
      return (value) => accepted.has(value)
    }
    case "nullable": {
      const inner = checkOf(def.innerType as Walkable)
      return (value) => value === null || inner(value)
    }
    case "array": {
      const element = checkOf(def.element as Walkable)
      return (value) => Array.isArray(value) && value.every(element)
    }
    case "union": {
      const options = (def.options as ReadonlyArray<Walkable>).map(checkOf)
      return (value) => options.some((option) => option(value))
    }
    case "record": {
      if ((def.keyType as Walkable)._zod.def.type !== "string") break
      const entry = checkOf(def.valueType as Walkable)
      return (value) => Wire.isPlainObject(value) && Object.values(value).every(entry)
    }
    case "pipe": {
      // A codec field (money) holds its inside form, or the number a release before it wrote.
      if (typeof def.reverseTransform !== "function") break
      const written = checkOf(def.in as Walkable)
      // The inside form's own check (an amount's text is canonical decimal), not just its type.
      const inside = def.out as { readonly safeParse: (value: unknown) => { readonly success: boolean } }
      return (value) => written(value) || inside.safeParse(value).success
    }
    case "object": {
      const fields = Object.entries(def.shape as Readonly<Record<string, Walkable>>).map(
        ([key, field]) => [key, checkOf(field)] as const
      )
      return (value) => Wire.isPlainObject(value) && fields.every(([key, field]) => field(value[key]))
    }
  }
  throw new Error(`storage-pg has no check for a stored ${def.type} schema`)
}

/**
 * The reader of a JSON column holding what the core's `schema` describes (e.g. a record schema's
 * `.shape.items`), checked by a predicate made once from the schema: a zod parse per row would
 * build a second copy of every document of every page.
 */
export const jsonOf = <S extends Walkable>(column: string, schema: S): ((stored: unknown) => Output<S>) => {
  const accepts = checkOf(schema)
  const isAccepted = (value: unknown): value is Output<S> => accepts(value)
  const decode = Wire.storedDecoder(schema) ?? ((value: unknown) => value)
  return (stored) => {
    const value = typeof stored === "string" ? JSON.parse(stored) : stored
    if (isAccepted(value)) return decode(value) as Output<S>
    throw new StoredValueRefused(`${column} holds JSON that the core's schema does not accept`)
  }
}
