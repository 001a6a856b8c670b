/**
 * The one reader of zod's schema definitions (`_zod.def`, which zod 4 keeps for tools that walk
 * schemas). Everything that walks a schema (the wire codecs in `Wire.ts`, storage-pg's checks of
 * stored documents, the arbitraries of `@crm/testing`) folds over the `Node` made here, so a zod
 * upgrade that moves a definition is met in this file alone, and the packages that may not import
 * zod (storage-pg) still walk the core's schemas.
 */
import { z } from "zod"

/** Any zod schema. */
export type Schema = z.core.$ZodType

/**
 * What a schema parses to. An indexed access rather than `z.output`'s conditional, so that code
 * generic over the schema can still pass its result where the same type is expected.
 */
export type Output<S extends Schema> = S["_zod"]["output"]

/** A check of a string, number, array or object, as far as a generator or a bound can use it. */
export type Check =
  | { readonly check: "min_length"; readonly minimum: number }
  | { readonly check: "max_length"; readonly maximum: number }
  | { readonly check: "length_equals"; readonly length: number }
  /** `regex`, `email`, `lowercase`, ...; the pattern when the format has one. */
  | { readonly check: "string_format"; readonly format: string; readonly pattern: RegExp | undefined }
  /** A bound (`min`, `positive`, `gt`): `value` as a number. */
  | { readonly check: "greater_than" | "less_than"; readonly value: number; readonly inclusive: boolean }
  /** `safeint`, `int32`, `float64`, ... */
  | { readonly check: "number_format"; readonly format: string }
  /** A refinement (a function) or an overwrite (`trim`, `toLowerCase`): nothing to read but that it is there. */
  | { readonly check: "custom" | "overwrite" }
  | { readonly check: "other"; readonly name: string }

/**
 * A codec's two directions (`z.codec`, e.g. money: a wire number and the `Amount` text held
 * inside). Synchronous, as every codec of the core is.
 */
export interface Codec {
  /** The wire form into the inside form. */
  readonly decode: (value: unknown) => unknown
  /** The inside form back into the wire form. */
  readonly encode: (value: unknown) => unknown
}

export interface Field {
  readonly key: string
  readonly schema: Schema
  /** The key may be left out of an input (an optional, defaulted or prefaulted field). */
  readonly optional: boolean
}

/** The kinds that hold one other schema and add a rule around it. */
export type WrapperKind = "optional" | "nullable" | "default" | "prefault" | "nonoptional" | "readonly" | "catch"

type LeafKind = "boolean" | "bigint" | "symbol" | "null" | "undefined" | "void" | "any" | "unknown" | "never" | "date"

interface Of<K extends string> {
  readonly kind: K
  /** The schema's own checks, in the order they were added. */
  readonly checks: ReadonlyArray<Check>
}

/** One schema as its kind describes it: the schemas it holds, its values, its checks. */
export type Node =
  | (Of<"string"> & { readonly format: string | undefined; readonly pattern: RegExp | undefined })
  | (Of<"number"> & { readonly format: string | undefined })
  | Of<LeafKind>
  | (Of<"enum"> & { readonly values: ReadonlyArray<string | number> })
  | (Of<"literal"> & { readonly values: ReadonlyArray<unknown> })
  | (Of<"object"> & { readonly fields: ReadonlyArray<Field>; readonly catchall: Schema | undefined })
  | (Of<"array"> & { readonly element: Schema })
  | (Of<"tuple"> & { readonly items: ReadonlyArray<Schema>; readonly rest: Schema | undefined })
  /** `partial`: an enum or literal key schema does not require every key. */
  | (Of<"record"> & { readonly key: Schema; readonly value: Schema; readonly partial: boolean })
  /** A plain or a discriminated union. */
  | (Of<"union"> & { readonly options: ReadonlyArray<Schema> })
  | (Of<"intersection"> & { readonly left: Schema; readonly right: Schema })
  | (Of<WrapperKind> & { readonly inner: Schema })
  /** `in` parsed, then `out`; `codec` when the pipe is a `z.codec`, which also encodes. */
  | (Of<"pipe"> & { readonly in: Schema; readonly out: Schema; readonly codec: Codec | undefined })
  /** The function of a `.transform(...)`, which nothing can read. */
  | Of<"transform">
  | (Of<"lazy"> & { readonly schema: () => Schema })
  /** A kind no walker here reads (map, set, promise, template literal, ...), by zod's name. */
  | (Of<"other"> & { readonly name: string })

export type Kind = Node["kind"]

/** The node of a kind. */
export type NodeOf<K extends Kind> = Extract<Node, { readonly kind: K }>

const LEAVES: ReadonlySet<string> = new Set<LeafKind>([
  "boolean",
  "bigint",
  "symbol",
  "null",
  "undefined",
  "void",
  "any",
  "unknown",
  "never",
  "date"
])

const WRAPPERS: ReadonlySet<string> = new Set<WrapperKind>([
  "optional",
  "nullable",
  "default",
  "prefault",
  "nonoptional",
  "readonly",
  "catch"
])

/** A definition as zod keeps it: only its `type` is common to every kind. */
type Def = { readonly type: string } & Readonly<Record<string, unknown>>

const defOf = (schema: Schema): Def => schema._zod.def as unknown as Def

const checkOf = (check: z.core.$ZodCheck): Check => {
  const def = check._zod.def as unknown as { readonly check: string } & Readonly<Record<string, unknown>>
  switch (def.check) {
    case "min_length":
      return { check: def.check, minimum: def.minimum as number }
    case "max_length":
      return { check: def.check, maximum: def.maximum as number }
    case "length_equals":
      return { check: def.check, length: def.length as number }
    case "string_format":
      return { check: def.check, format: def.format as string, pattern: def.pattern as RegExp | undefined }
    case "greater_than":
    case "less_than":
      return { check: def.check, value: Number(def.value), inclusive: def.inclusive === true }
    case "number_format":
      return { check: def.check, format: def.format as string }
    case "custom":
    case "overwrite":
      return { check: def.check }
  }
  return { check: "other", name: def.check }
}

const checksOf = (def: Def): ReadonlyArray<Check> =>
  ((def.checks as ReadonlyArray<z.core.$ZodCheck> | undefined) ?? []).map(checkOf)

/** Zod calls a codec's functions with the parse's payload; the core's codecs read only the value. */
const payload = (value: unknown) => ({ value, issues: [] })

/** `schema` as a node of its kind. */
export const node = (schema: Schema): Node => {
  const def = defOf(schema)
  const checks = checksOf(def)
  const type = def.type
  if (LEAVES.has(type)) return { kind: type as LeafKind, checks }
  if (WRAPPERS.has(type)) return { kind: type as WrapperKind, checks, inner: def.innerType as Schema }
  switch (type) {
    case "string":
      return {
        kind: type,
        checks,
        format: def.format as string | undefined,
        pattern: def.pattern as RegExp | undefined
      }
    case "number":
      return { kind: type, checks, format: def.format as string | undefined }
    case "enum":
      return { kind: type, checks, values: Object.values(def.entries as Readonly<Record<string, string | number>>) }
    case "literal":
      return { kind: type, checks, values: def.values as ReadonlyArray<unknown> }
    case "object":
      return {
        kind: type,
        checks,
        fields: Object.entries(def.shape as Readonly<Record<string, Schema>>).map(([key, field]) => ({
          key,
          schema: field,
          optional: field._zod.optin !== undefined
        })),
        catchall: def.catchall as Schema | undefined
      }
    case "array":
      return { kind: type, checks, element: def.element as Schema }
    case "tuple":
      return {
        kind: type,
        checks,
        items: def.items as ReadonlyArray<Schema>,
        rest: (def.rest ?? undefined) as Schema | undefined
      }
    case "record":
      return {
        kind: type,
        checks,
        key: def.keyType as Schema,
        value: def.valueType as Schema,
        partial: def.partial === true
      }
    case "union":
      return { kind: type, checks, options: def.options as ReadonlyArray<Schema> }
    case "intersection":
      return { kind: type, checks, left: def.left as Schema, right: def.right as Schema }
    case "pipe": {
      const decode = def.transform as ((value: unknown, payload: unknown) => unknown) | undefined
      const encode = def.reverseTransform as ((value: unknown, payload: unknown) => unknown) | undefined
      const codec =
        decode === undefined || encode === undefined
          ? undefined
          : {
              decode: (value: unknown) => decode(value, payload(value)),
              encode: (value: unknown) => encode(value, payload(value))
            }
      return { kind: type, checks, in: def.in as Schema, out: def.out as Schema, codec }
    }
    case "transform":
      return { kind: type, checks }
    case "lazy":
      return { kind: type, checks, schema: def.getter as () => Schema }
  }
  return { kind: "other", checks, name: type }
}

/** A node's kind as zod names it (`other` nodes by their own name), for messages. */
export const nameOf = (walked: Node): string => (walked.kind === "other" ? walked.name : walked.kind)

/** The cases of a fold: one per kind it reads, and what every other kind gives. */
export type Cases<R> = {
  readonly [K in Kind]?: (walked: NodeOf<K>, self: (schema: Schema) => R) => R
} & {
  readonly otherwise: (walked: Node, self: (schema: Schema) => R) => R
}

/**
 * A function over schemas defined per kind: each case gets the node and the function itself, for
 * the schemas the node holds. Nothing is cached: a fold runs once per schema, when what it makes
 * (a converter, a check) is made, never per value.
 */
export const fold = <R>(cases: Cases<R>): ((schema: Schema) => R) => {
  const self = (schema: Schema): R => {
    const walked = node(schema)
    const visit = (cases[walked.kind] ?? cases.otherwise) as (walked: Node, self: (schema: Schema) => R) => R
    return visit(walked, self)
  }
  return self
}

/** Whether `schema` accepts `value`, for a walker that meets a check it cannot read as data. */
export const accepts = (schema: Schema, value: unknown): boolean => z.safeParse(schema, value).success
