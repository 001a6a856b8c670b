/**
 * fast-check arbitraries derived from zod 4 schemas, read through the core's schema walker
 * (`SchemaWalk`), so the schemas stay the one source of every input shape: `valid` values the
 * schema accepts and `invalid` values it refuses. No maintained library converts zod 4.
 *
 * Checks the generators cannot build in (refinements, `trim`, lookarounds, transforms that may
 * refuse) are enforced by filtering with the schema itself, after a fixed-seed probe: a check that
 * passes fewer than 5 of 100 generated values is not filtered for (that would crawl) but left to
 * the enclosing optional, default or nullable, or reported with `UnsupportedSchema`; `overrides`
 * supplies an arbitrary for such a schema.
 *
 * The derivation itself lives in `arbitraries/`: the shared probe (`Derivation.ts`), the kinds
 * (`Derive.ts`), strings, numbers and containers.
 */
import * as Core from "@crm/core"
import fc from "fast-check"
import { z } from "zod"
import { accepts, type Context, type Overrides, once, UnsupportedSchema } from "./arbitraries/Derivation.js"
import { derive } from "./arbitraries/Derive.js"

export { UnsupportedSchema }

export interface Options {
  /**
   * Arbitraries of valid values to use instead of deriving, per schema (compared by identity),
   * on top of `coreOverrides()`.
   */
  readonly overrides?: ReadonlyMap<z.core.$ZodType, fc.Arbitrary<unknown>>
  /** The schema's name in error messages. */
  readonly name?: string
}

/** Values `schema` accepts (its input type: what a client sends before parsing). */
export const valid = <S extends z.core.$ZodType>(schema: S, options: Options = {}): fc.Arbitrary<z.input<S>> => {
  const derived = derive(schema, contextOf(options))
  if (derived.valid === undefined) throw new UnsupportedSchema(options.name ?? "schema", derived.unmet)
  return derived.valid as fc.Arbitrary<z.input<S>>
}

/** Valid values after parsing: what a service operation takes. */
export const parsed = <S extends z.core.$ZodType>(schema: S, options: Options = {}): fc.Arbitrary<z.output<S>> =>
  valid(schema, options).map((input) => z.parse(schema, input))

/** Values `schema` refuses: wrong types, broken bounds and formats, missing or unknown keys, one bad field. */
export const invalid = (schema: z.core.$ZodType, options: Options = {}): fc.Arbitrary<unknown> => {
  const refused = derive(schema, contextOf(options)).invalid()
  if (refused === undefined) throw new UnsupportedSchema(options.name ?? "schema", "it accepts every value tried")
  return refused
}

export interface NamedSchema {
  /** Where the core exports it: `Contacts.ContactCreate`, `Invoicing.PaymentCreate`. */
  readonly name: string
  readonly schema: z.ZodType
}

/**
 * A module namespace: a real one from the sources, or what a bundler makes of `export * as` (an
 * object of read-only getters, as esbuild's `__export` writes it in the core's `dist`).
 */
const isNamespace = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null) return false
  if (Object.prototype.toString.call(value) === "[object Module]") return true
  const descriptors = Object.values(Object.getOwnPropertyDescriptors(value))
  return descriptors.length > 0 && descriptors.every((d) => d.get !== undefined && d.set === undefined)
}

/**
 * Every zod schema `@crm/core` exports, by the name it is exported under (nested namespaces
 * included): request bodies, queries, responses and their parts. A shape used under two names
 * is listed under each.
 */
export const catalogue = once((): ReadonlyArray<NamedSchema> => {
  const found: Array<NamedSchema> = []
  const seen = new Set<object>()
  const walk = (namespace: Record<string, unknown>, prefix: string) => {
    seen.add(namespace)
    for (const [key, value] of Object.entries(namespace)) {
      if (value instanceof z.ZodType) found.push({ name: `${prefix}${key}`, schema: value })
      else if (isNamespace(value) && !seen.has(value)) walk(value, `${prefix}${key}.`)
    }
  }
  walk(Core, "")
  return found
})

const NO_OVERRIDES: Overrides = new Map()

/** A mapping's other target, `custom.<key>`: a key as the record field keys allow. */
const customTarget = once(() => {
  const key = derive(Core.Records.FieldKey, { path: "Records.FieldKey", overrides: NO_OVERRIDES }).valid!
  return key.map((k) => `custom.${String(k)}`)
})

/**
 * Arbitraries for the core schemas whose refinements are functions the converter cannot read,
 * built from what the core exports beside them (the allowed names, the field key schema).
 */
export const coreOverrides = once(
  (): Overrides =>
    new Map<z.core.$ZodType, fc.Arbitrary<unknown>>([
      [Core.Forms.MapsTo, fc.oneof(fc.constantFrom(...Core.Forms.CONTACT_TARGETS), customTarget())],
      [Core.Deals.RequiredField, fc.oneof(fc.constantFrom(...Core.Deals.REQUIRED_DEAL_FIELDS), customTarget())],
      [Core.Access.IpAllowList.CidrString, cidr().filter(accepts(Core.Access.IpAllowList.CidrString))]
    ])
)

/** An address or a range, of either family, as an allow-list entry names them. */
const cidr = () =>
  fc.oneof(
    fc.ipV4(),
    fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })).map(([address, bits]) => `${address}/${bits}`),
    fc.ipV6(),
    fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 })).map(([address, bits]) => `${address}/${bits}`)
  )

const withCore = new WeakMap<Overrides, Overrides>()

const contextOf = (options: Options): Context => {
  const given = options.overrides
  let overrides = given === undefined ? coreOverrides() : withCore.get(given)
  if (overrides === undefined) {
    overrides = new Map([...coreOverrides(), ...given!])
    withCore.set(given!, overrides)
  }
  return { path: options.name ?? "schema", overrides }
}
