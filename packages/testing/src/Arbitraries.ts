/**
 * fast-check arbitraries derived from zod 4 schemas, read from their public definitions
 * (`schema._zod.def`), so the schemas stay the one source of every input shape: `valid` values
 * the schema accepts and `invalid` values it refuses. No maintained library converts zod 4.
 *
 * Checks the generators cannot build in (refinements, `trim`, lookarounds, transforms that may
 * refuse) are enforced by filtering with the schema itself, after a fixed-seed probe: a check that
 * passes fewer than 5 of 100 generated values is not filtered for (that would crawl) but left to
 * the enclosing optional, default or nullable, or reported with `UnsupportedSchema`; `overrides`
 * supplies an arbitrary for such a schema.
 */
import * as Core from "@crm/core"
import fc from "fast-check"
import { z } from "zod"

/** `make()` on first use, then its value. */
const once = <A>(make: () => A): (() => A) => {
  let made: { readonly value: A } | undefined
  return () => {
    made ??= { value: make() }
    return made.value
  }
}

/** Thrown when a schema uses a kind the converter does not read, or its checks can hardly be met. */
export class UnsupportedSchema extends Error {
  constructor(
    readonly path: string,
    readonly reason: string
  ) {
    super(`cannot derive an arbitrary for ${path}: ${reason}`)
    this.name = "UnsupportedSchema"
  }
}

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

interface Context {
  readonly path: string
  readonly overrides: ReadonlyMap<z.core.$ZodType, fc.Arbitrary<unknown>>
}

interface Derived {
  /** Undefined when no valid value can be generated; `unmet` says why. */
  readonly valid: fc.Arbitrary<unknown> | undefined
  readonly unmet: string
  /** Undefined when the schema accepts every candidate; derived on demand (it probes). */
  readonly invalid: () => fc.Arbitrary<unknown> | undefined
  /** Of an optional or defaulted schema: what it holds when given, for an object key that may be left out. */
  readonly inner?: Derived
}

type Overrides = ReadonlyMap<z.core.$ZodType, fc.Arbitrary<unknown>>

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

const PROBES = 100
const MIN_ACCEPTED = 5
/** Probes are drawn in batches with fixed seeds and stop once enough values passed: most schemas need one batch. */
const BATCH = 10
const SEED = 0x5eed
/** Generated beyond an array's minimum length, and a record's most keys: enough to vary, small enough to stay fast. */
const EXTRA_ITEMS = 4
/** The only value of an optional schema whose inner schema cannot be generated. */
const absent = fc.constant(undefined)

const accepts = (schema: z.core.$ZodType) => (value: unknown) => z.safeParse(schema, value).success
const refuses = (schema: z.core.$ZodType) => (value: unknown) => !z.safeParse(schema, value).success

/** How many of up to `PROBES` generated values pass `predicate`, stopping once `needed` did. */
const passing = (arbitrary: fc.Arbitrary<unknown>, predicate: (value: unknown) => boolean, needed: number): number => {
  let passed = 0
  for (let batch = 0; batch * BATCH < PROBES && passed < needed; batch++) {
    passed += fc.sample(arbitrary, { numRuns: BATCH, seed: SEED + batch }).filter(predicate).length
  }
  return passed
}

/** `base` filtered by the schema when the schema has checks `base` may break, if enough values pass. */
const enforce = (
  schema: z.core.$ZodType,
  base: fc.Arbitrary<unknown>,
  ctx: Context
): Pick<Derived, "valid" | "unmet"> => {
  const def = schema._zod.def
  if ((def.checks ?? []).length === 0 && def.type !== "pipe" && !("format" in def)) return { valid: base, unmet: "" }
  const passed = passing(base, accepts(schema), MIN_ACCEPTED)
  return passed >= MIN_ACCEPTED
    ? { valid: base.filter(accepts(schema)), unmet: "" }
    : {
        valid: undefined,
        unmet: `${ctx.path}: only ${passed} of ${PROBES} generated values pass its checks (give an override)`
      }
}

/** Candidates the schema refuses, or undefined when none of them is refused. */
const refusedOf = (schema: z.core.$ZodType, candidates: ReadonlyArray<fc.Arbitrary<unknown> | undefined>) => {
  const pool = fc.oneof(...candidates.filter((c): c is fc.Arbitrary<unknown> => c !== undefined))
  return passing(pool, refuses(schema), 1) === 0 ? undefined : pool.filter(refuses(schema))
}

const wrongTypes = fc.constantFrom<unknown>(undefined, null, true, 0, -1, 1.5, "", "not valid", [], {})

const unsupported = (ctx: Context, what: string): never => {
  throw new UnsupportedSchema(ctx.path, `${what} is not supported`)
}

const at = (ctx: Context, segment: string): Context => ({ ...ctx, path: `${ctx.path}${segment}` })

const checksOf = (schema: z.core.$ZodType) => (schema._zod.def.checks ?? []).map((check) => check._zod.def)

/**
 * Derivations, per overrides and schema: shared schemas (ids, timestamps, lines) are derived, and
 * their checks probed, once. A shared schema's unmet reason names the path it was first met at.
 */
const derivations = new WeakMap<
  ReadonlyMap<z.core.$ZodType, fc.Arbitrary<unknown>>,
  WeakMap<z.core.$ZodType, Derived>
>()

const derive = (schema: z.core.$ZodType, ctx: Context): Derived => {
  let known = derivations.get(ctx.overrides)
  if (known === undefined) {
    known = new WeakMap()
    derivations.set(ctx.overrides, known)
  }
  const cached = known.get(schema)
  if (cached !== undefined) return cached
  const made = withOwnChecks(schema, deriveKind(schema, ctx), ctx)
  known.set(schema, made)
  return made
}

const WRAPPERS = new Set(["nullable", "optional", "default", "prefault", "readonly", "catch"])

/**
 * A wrapper may carry checks of its own (`.default([]).superRefine(...)`): its values, and what an
 * object key holds when given, are filtered by the wrapper itself.
 */
const withOwnChecks = (schema: z.core.$ZodType, made: Derived, ctx: Context): Derived => {
  if (!WRAPPERS.has(schema._zod.def.type) || (schema._zod.def.checks ?? []).length === 0) return made
  const own = made.valid === undefined ? made : { ...made, ...enforce(schema, made.valid, ctx) }
  return made.inner?.valid === undefined
    ? own
    : { ...own, inner: { ...made.inner, ...enforce(schema, made.inner.valid, ctx) } }
}

const deriveKind = (schema: z.core.$ZodType, ctx: Context): Derived => {
  const override = ctx.overrides.get(schema)
  if (override !== undefined) {
    return { valid: override, unmet: "", invalid: once(() => refusedOf(schema, [wrongTypes, fc.jsonValue()])) }
  }
  const s = schema as z.core.$ZodTypes
  switch (s._zod.def.type) {
    case "string":
      return derived(schema, ctx, stringOf(s as z.core.$ZodString, ctx), (base) => stringRefusals(schema, base))
    case "number": {
      const bounds = numberBounds(schema, ctx)
      return derived(schema, ctx, numberOf(bounds), (base) => numberRefusals(bounds, base))
    }
    case "boolean":
      return derived(schema, ctx, fc.boolean(), () => [])
    case "null":
      return derived(schema, ctx, fc.constant(null), () => [])
    case "undefined":
      return derived(schema, ctx, absent, () => [])
    case "any":
    case "unknown":
      return derived(schema, ctx, fc.jsonValue({ maxDepth: 2 }), () => [])
    case "never":
      return { valid: undefined, unmet: `${ctx.path} is never`, invalid: once(() => refusedOf(schema, [wrongTypes])) }
    case "enum":
      return derived(schema, ctx, fc.constantFrom(...Object.values((s as z.core.$ZodEnum)._zod.def.entries)), () => [
        fc.string()
      ])
    case "literal":
      return derived(schema, ctx, fc.constantFrom(...(s as z.core.$ZodLiteral)._zod.def.values), () => [fc.string()])
    case "object":
      return objectOf(s as z.core.$ZodObject, ctx)
    case "array":
      return arrayOf(s as z.core.$ZodArray, ctx)
    case "record":
      return recordOf(s as z.core.$ZodRecord, ctx)
    case "union":
      return unionOf(s as z.core.$ZodUnion, ctx)
    case "intersection":
      return intersectionOf(s as z.core.$ZodIntersection, ctx)
    case "nullable": {
      const inner = derive((s as z.core.$ZodNullable)._zod.def.innerType, ctx)
      const valid = inner.valid === undefined ? fc.constant(null) : fc.option(inner.valid, { nil: null })
      return { valid, unmet: "", invalid: once(() => refusedOf(schema, [inner.invalid()])) }
    }
    case "optional":
    case "default":
    case "prefault": {
      const inner = derive(
        (s as z.core.$ZodOptional | z.core.$ZodDefault | z.core.$ZodPrefault)._zod.def.innerType,
        ctx
      )
      const valid = inner.valid === undefined ? absent : fc.option(inner.valid, { nil: undefined })
      return { valid, unmet: "", invalid: once(() => refusedOf(schema, [inner.invalid()])), inner }
    }
    case "readonly":
    case "catch": {
      // A catch accepts what its inner schema refuses: refusals are only what the schema itself refuses.
      const inner = derive((s as z.core.$ZodReadonly | z.core.$ZodCatch)._zod.def.innerType, ctx)
      return { ...inner, invalid: once(() => refusedOf(schema, [inner.invalid()])) }
    }
    case "pipe": {
      const inner = derive((s as z.core.$ZodPipe)._zod.def.in, ctx)
      if (inner.valid === undefined) return { ...inner, invalid: once(() => refusedOf(schema, [inner.invalid()])) }
      const base = inner.valid
      return { ...enforce(schema, base, ctx), invalid: once(() => refusedOf(schema, [inner.invalid(), base])) }
    }
    default:
      return unsupported(ctx, `the kind "${s._zod.def.type}"`)
  }
}

/** A leaf: its generator, filtered by its checks; its refusals from wrong types, its own candidates and unfiltered values. */
const derived = (
  schema: z.core.$ZodType,
  ctx: Context,
  base: fc.Arbitrary<unknown>,
  candidates: (base: fc.Arbitrary<unknown>) => ReadonlyArray<fc.Arbitrary<unknown> | undefined>
): Derived => ({
  ...enforce(schema, base, ctx),
  invalid: once(() => refusedOf(schema, [wrongTypes, base, ...candidates(base)]))
})

const lengthBounds = (schema: z.core.$ZodType) => {
  let min = 0
  let max: number | undefined
  for (const check of checksOf(schema)) {
    if (check.check === "min_length") min = Math.max(min, (check as z.core.$ZodCheckMinLengthDef).minimum)
    if (check.check === "max_length") {
      const maximum = (check as z.core.$ZodCheckMaxLengthDef).maximum
      max = max === undefined ? maximum : Math.min(max, maximum)
    }
    if (check.check === "length_equals") {
      min = (check as z.core.$ZodCheckLengthEqualsDef).length
      max = min
    }
  }
  return { min, max }
}

const STRING_CHECKS = new Set(["min_length", "max_length", "length_equals", "string_format", "overwrite", "custom"])

const stringOf = (schema: z.core.$ZodString, ctx: Context): fc.Arbitrary<unknown> => {
  const def = schema._zod.def as z.core.$ZodStringDef & Partial<z.core.$ZodCheckStringFormatDef>
  const patterns: Array<RegExp> = []
  for (const check of checksOf(schema)) {
    if (!STRING_CHECKS.has(check.check)) unsupported(ctx, `the string check "${check.check}"`)
    const pattern = (check as Partial<z.core.$ZodCheckStringFormatDef>).pattern
    if (check.check === "string_format" && pattern !== undefined) patterns.push(pattern)
  }
  if (def.format === "url") return webUrl()
  if (def.format !== undefined) {
    if (def.pattern === undefined) unsupported(ctx, `the string format "${def.format}"`)
    patterns.unshift(def.pattern!)
  }
  const { min, max } = lengthBounds(schema)
  if (patterns.length === 0) return fc.string({ minLength: min, ...(max === undefined ? {} : { maxLength: max }) })
  try {
    return matching(withoutLookarounds(patterns[0]!))
  } catch (error) {
    return unsupported(ctx, `the pattern ${patterns[0]} (${String(error)})`)
  }
}

/**
 * Web URLs: `fc.webUrl`'s authorities with plain path segments and queries (its own percent-encoded
 * ones take seconds to build).
 */
const webUrl = once(() =>
  fc
    .tuple(
      fc.constantFrom("https", "http"),
      fc.webAuthority(),
      fc.array(fc.stringMatching(/^[\w.~-]{1,12}$/), { maxLength: 3 }),
      fc.option(fc.stringMatching(/^[\w=&-]{1,16}$/), { nil: undefined })
    )
    .map(
      ([scheme, authority, segments, query]) =>
        `${scheme}://${authority}${segments.map((segment) => `/${segment}`).join("")}${query === undefined ? "" : `?${query}`}`
    )
)

const stringRefusals = (schema: z.core.$ZodType, base: fc.Arbitrary<unknown>) => {
  const { min, max } = lengthBounds(schema)
  return [
    fc.string(),
    base.map((value) => ` ${String(value)}!`),
    max === undefined ? undefined : fc.nat(3).map((n) => "x".repeat(max + 1 + n)),
    min === 0 ? undefined : fc.constant("x".repeat(min - 1))
  ]
}

/** `fc.stringMatching` takes tens of milliseconds to build: one per pattern (each `z.uuid()` is a schema of its own). */
const matchers = new Map<string, fc.Arbitrary<string>>()

const matching = (pattern: RegExp): fc.Arbitrary<string> => {
  const key = `${pattern.flags}/${pattern.source}`
  let matcher = matchers.get(key)
  if (matcher === undefined) {
    matcher = fc.stringMatching(pattern)
    matchers.set(key, matcher)
  }
  return matcher
}

/**
 * The pattern without its lookaheads and lookbehinds, which fast-check cannot generate from:
 * it generates a superset, and the schema's own check filters it back.
 */
const withoutLookarounds = (pattern: RegExp): RegExp => {
  const source = pattern.source
  let out = ""
  for (let i = 0; i < source.length; i++) {
    if (source[i] === "\\") {
      out += source.slice(i, i + 2)
      i++
    } else if (source[i] === "[") {
      const end = classEnd(source, i)
      out += source.slice(i, end + 1)
      i = end
    } else if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) {
      i = groupEnd(source, i)
    } else {
      out += source[i]
    }
  }
  return new RegExp(out, pattern.flags)
}

const classEnd = (source: string, start: number): number => {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === "\\") i++
    else if (source[i] === "]" && i > start + 1) return i
  }
  return source.length
}

const groupEnd = (source: string, start: number): number => {
  let depth = 0
  for (let i = start; i < source.length; i++) {
    if (source[i] === "\\") i++
    else if (source[i] === "[") i = classEnd(source, i)
    else if (source[i] === "(") depth++
    else if (source[i] === ")" && --depth === 0) return i
  }
  return source.length
}

interface NumberBounds {
  readonly min: number
  readonly max: number
  readonly minExcluded: boolean
  readonly maxExcluded: boolean
  readonly integer: boolean
}

const INTEGER_FORMATS: Record<string, readonly [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1]
}

const numberBounds = (schema: z.core.$ZodType, ctx: Context): NumberBounds => {
  let bounds: NumberBounds = { min: -Infinity, max: Infinity, minExcluded: false, maxExcluded: false, integer: false }
  const raise = (min: number, excluded: boolean) => {
    if (min > bounds.min || (min === bounds.min && excluded)) bounds = { ...bounds, min, minExcluded: excluded }
  }
  const lower = (max: number, excluded: boolean) => {
    if (max < bounds.max || (max === bounds.max && excluded)) bounds = { ...bounds, max, maxExcluded: excluded }
  }
  for (const check of checksOf(schema)) {
    switch (check.check) {
      case "greater_than": {
        const { value, inclusive } = check as z.core.$ZodCheckGreaterThanDef
        raise(Number(value), !inclusive)
        break
      }
      case "less_than": {
        const { value, inclusive } = check as z.core.$ZodCheckLessThanDef
        lower(Number(value), !inclusive)
        break
      }
      case "number_format": {
        const range = INTEGER_FORMATS[(check as z.core.$ZodCheckNumberFormatDef).format]
        if (range !== undefined) {
          bounds = { ...bounds, integer: true }
          raise(range[0], false)
          lower(range[1], false)
        }
        break
      }
      case "custom":
      case "overwrite":
        break
      default:
        unsupported(ctx, `the number check "${check.check}"`)
    }
  }
  return bounds
}

const numberOf = ({ min, max, minExcluded, maxExcluded, integer }: NumberBounds): fc.Arbitrary<unknown> => {
  // zod's number refuses the infinities, so an unbounded side stops at the largest finite double.
  if (!integer) {
    return fc.double({
      min: Number.isFinite(min) ? min : -Number.MAX_VALUE,
      max: Number.isFinite(max) ? max : Number.MAX_VALUE,
      minExcluded: minExcluded && Number.isFinite(min),
      maxExcluded: maxExcluded && Number.isFinite(max),
      noNaN: true
    })
  }
  const low = Math.max(minExcluded ? Math.floor(min) + 1 : Math.ceil(min), Number.MIN_SAFE_INTEGER)
  const high = Math.min(maxExcluded ? Math.ceil(max) - 1 : Math.floor(max), Number.MAX_SAFE_INTEGER)
  const whole =
    low >= -(2 ** 31) && high <= 2 ** 31 - 1
      ? fc.integer({ min: low, max: high })
      : fc.bigInt({ min: BigInt(low), max: BigInt(high) }).map(Number)
  // Refinements the converter cannot read (a score on a scale, a count of days) mostly want small
  // numbers: a wide range is drawn from its small values half the time.
  const smallLow = Math.max(low, -10)
  const smallHigh = Math.min(high, 100)
  return high - low <= 1000 || smallLow > smallHigh
    ? whole
    : fc.oneof(fc.integer({ min: smallLow, max: smallHigh }), whole)
}

const numberRefusals = ({ min, max, integer }: NumberBounds, base: fc.Arbitrary<unknown>) => [
  fc.constantFrom(Number.NaN, Infinity, -Infinity, "1"),
  Number.isFinite(min) ? fc.constantFrom(min, min - 1, min - 0.5) : undefined,
  Number.isFinite(max) ? fc.constantFrom(max, max + 1, max + 0.5) : undefined,
  integer ? base.map((n) => Number(n) + 0.5) : undefined
]

const objectOf = (schema: z.core.$ZodObject, ctx: Context): Derived => {
  const { shape, catchall } = schema._zod.def
  const fields = Object.entries(shape).map(([key, field]) => {
    const derived = derive(field, at(ctx, `.${key}`))
    const optional = field._zod.optin !== undefined
    // An optional key is left out rather than sent as `undefined`, as a JSON client would.
    return { key, optional, derived, given: optional ? (derived.inner ?? derived).valid : derived.valid }
  })
  const unmet = fields.find((field) => !field.optional && field.given === undefined)
  const present = fields.filter((field) => field.given !== undefined && field.given !== absent)
  const base =
    unmet === undefined
      ? fc.record(Object.fromEntries(present.map((field) => [field.key, field.given!])), {
          requiredKeys: present.filter((field) => !field.optional).map((field) => field.key)
        })
      : undefined
  const made = base === undefined ? { valid: undefined, unmet: unmet!.derived.unmet } : enforce(schema, base, ctx)
  return {
    ...made,
    invalid: once(() => {
      if (base === undefined) return refusedOf(schema, [wrongTypes])
      const required = fields.filter((field) => !field.optional).map((field) => field.key)
      const refusable = fields.flatMap((field) => {
        const refused = field.derived.invalid()
        return refused === undefined ? [] : [{ key: field.key, refused }]
      })
      return refusedOf(schema, [
        wrongTypes,
        base,
        required.length === 0
          ? undefined
          : fc.tuple(base, fc.constantFrom(...required)).map(([value, key]) => without(value, key)),
        refusable.length === 0
          ? undefined
          : fc
              .tuple(base, fc.constantFrom(...refusable))
              .chain(([value, field]) => field.refused.map((bad) => ({ ...(value as object), [field.key]: bad }))),
        catchall?._zod.def.type === "never"
          ? base.map((value) => ({ ...(value as object), "unknown key": 1 }))
          : undefined
      ])
    })
  }
}

const without = (value: unknown, key: string): Record<string, unknown> => {
  const copy: Record<string, unknown> = { ...(value as object) }
  delete copy[key]
  return copy
}

const arrayOf = (schema: z.core.$ZodArray, ctx: Context): Derived => {
  const element = derive(schema._zod.def.element, at(ctx, "[]"))
  const { min, max } = lengthBounds(schema)
  const maxLength = Math.min(max ?? Infinity, min + EXTRA_ITEMS)
  const base =
    element.valid === undefined
      ? min === 0
        ? fc.constant([])
        : undefined
      : fc.array(element.valid, { minLength: min, maxLength })
  const made = base === undefined ? { valid: undefined, unmet: element.unmet } : enforce(schema, base, ctx)
  return {
    ...made,
    invalid: once(() => {
      const item = element.valid
      const bad = element.invalid()
      return refusedOf(schema, [
        wrongTypes,
        base,
        bad === undefined || base === undefined
          ? undefined
          : fc.tuple(base, bad).map(([items, one]) => [...(items as Array<unknown>), one]),
        item === undefined || max === undefined ? undefined : item.map((one) => Array(max + 1).fill(one)),
        item === undefined || min === 0 ? undefined : item.map((one) => Array(min - 1).fill(one))
      ])
    })
  }
}

const recordOf = (schema: z.core.$ZodRecord, ctx: Context): Derived => {
  const { keyType, valueType, partial } = schema._zod.def
  const value = derive(valueType, at(ctx, "[value]"))
  const keyDef = (keyType as z.core.$ZodTypes)._zod.def
  // zod requires every key of an enum or literal key schema, unless the record is partial.
  const keys =
    keyDef.type === "enum"
      ? Object.values(keyDef.entries).map(String)
      : keyDef.type === "literal"
        ? keyDef.values.map(String)
        : undefined
  const key = keys === undefined ? derive(keyType, at(ctx, "[key]")) : undefined
  const someKey = keys === undefined ? key!.valid : fc.constantFrom(...keys)
  const base =
    value.valid === undefined || someKey === undefined
      ? keys === undefined || partial
        ? fc.constant({})
        : undefined
      : keys === undefined
        ? fc.dictionary(someKey as fc.Arbitrary<string>, value.valid, { maxKeys: EXTRA_ITEMS })
        : fc.record(Object.fromEntries(keys.map((k) => [k, value.valid!])), { requiredKeys: partial ? [] : keys })
  const made = base === undefined ? { valid: undefined, unmet: value.unmet } : enforce(schema, base, ctx)
  return {
    ...made,
    invalid: once(() => {
      const badValue = value.invalid()
      // An object key is a string: only strings the key schema refuses make a bad key.
      const badKey =
        key === undefined
          ? undefined
          : refusedOf(keyType, [
              fc.string(),
              key.valid?.map((k) => ` ${String(k)}!`),
              fc.constantFrom("", "not valid", "UPPER")
            ])
      return refusedOf(schema, [
        wrongTypes,
        base,
        badValue === undefined || base === undefined || someKey === undefined
          ? undefined
          : fc.tuple(base, someKey, badValue).map(([record, k, bad]) => ({ ...(record as object), [String(k)]: bad })),
        badKey === undefined || value.valid === undefined
          ? undefined
          : fc.tuple(badKey, value.valid).map(([k, one]) => ({ [String(k)]: one }))
      ])
    })
  }
}

const unionOf = (schema: z.core.$ZodUnion, ctx: Context): Derived => {
  const options = schema._zod.def.options.map((option, i) => derive(option, at(ctx, `|${i}`)))
  const possible = options.flatMap((option) => (option.valid === undefined ? [] : [option.valid]))
  const made =
    possible.length === 0
      ? { valid: undefined, unmet: options.map((option) => option.unmet).join("; ") }
      : enforce(schema, fc.oneof(...possible), ctx)
  return {
    ...made,
    invalid: once(() => refusedOf(schema, [wrongTypes, ...options.map((option) => option.invalid())]))
  }
}

/**
 * An intersection of objects (a record and the fields a list adds to its rows, `archived_at`):
 * a value of each side, merged; refused are the values either side refuses.
 */
const intersectionOf = (schema: z.core.$ZodIntersection, ctx: Context): Derived => {
  const left = derive(schema._zod.def.left, at(ctx, "&0"))
  const right = derive(schema._zod.def.right, at(ctx, "&1"))
  const made =
    left.valid === undefined || right.valid === undefined
      ? { valid: undefined, unmet: [left.unmet, right.unmet].filter((reason) => reason !== "").join("; ") }
      : enforce(
          schema,
          fc.tuple(left.valid, right.valid).map(([a, b]) => ({ ...(a as object), ...(b as object) })),
          ctx
        )
  return { ...made, invalid: once(() => refusedOf(schema, [wrongTypes, left.invalid(), right.invalid()])) }
}
