/**
 * What every derivation shares: the derived pair of arbitraries (`Derived`), the probe that decides
 * whether a schema's checks are filtered for (`enforce`), and the pool of refused values (`refusedOf`).
 */
import { SchemaWalk } from "@crm/core"
import fc from "fast-check"
import { z } from "zod"

/** `make()` on first use, then its value. */
export const once = <A>(make: () => A): (() => A) => {
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

export type Overrides = ReadonlyMap<z.core.$ZodType, fc.Arbitrary<unknown>>

export interface Context {
  readonly path: string
  readonly overrides: Overrides
}

export interface Derived {
  /** Undefined when no valid value can be generated; `unmet` says why. */
  readonly valid: fc.Arbitrary<unknown> | undefined
  readonly unmet: string
  /** Undefined when the schema accepts every candidate; derived on demand (it probes). */
  readonly invalid: () => fc.Arbitrary<unknown> | undefined
  /** Of an optional or defaulted schema: what it holds when given, for an object key that may be left out. */
  readonly inner?: Derived
}

/** How a container derives what it holds (`Derive.ts`'s `derive`, passed in: it also derives containers). */
export type Derive = (schema: z.core.$ZodType, ctx: Context) => Derived

const PROBES = 100
const MIN_ACCEPTED = 5
/** Probes are drawn in batches with fixed seeds and stop once enough values passed: most schemas need one batch. */
const BATCH = 10
const SEED = 0x5eed
/** Generated beyond an array's minimum length, and a record's most keys: enough to vary, small enough to stay fast. */
export const EXTRA_ITEMS = 4
/** The only value of an optional schema whose inner schema cannot be generated. */
export const absent = fc.constant(undefined)

export const accepts = (schema: z.core.$ZodType) => (value: unknown) => z.safeParse(schema, value).success
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
export const enforce = (
  schema: z.core.$ZodType,
  base: fc.Arbitrary<unknown>,
  ctx: Context
): Pick<Derived, "valid" | "unmet"> => {
  const walked = SchemaWalk.node(schema)
  const formatted = (walked.kind === "string" || walked.kind === "number") && walked.format !== undefined
  if (walked.checks.length === 0 && walked.kind !== "pipe" && !formatted) return { valid: base, unmet: "" }
  const passed = passing(base, accepts(schema), MIN_ACCEPTED)
  return passed >= MIN_ACCEPTED
    ? { valid: base.filter(accepts(schema)), unmet: "" }
    : {
        valid: undefined,
        unmet: `${ctx.path}: only ${passed} of ${PROBES} generated values pass its checks (give an override)`
      }
}

/** Candidates the schema refuses, or undefined when none of them is refused. */
export const refusedOf = (
  schema: z.core.$ZodType,
  candidates: ReadonlyArray<fc.Arbitrary<unknown> | undefined>
): fc.Arbitrary<unknown> | undefined => {
  const pool = fc.oneof(...candidates.filter((c): c is fc.Arbitrary<unknown> => c !== undefined))
  return passing(pool, refuses(schema), 1) === 0 ? undefined : pool.filter(refuses(schema))
}

export const wrongTypes = fc.constantFrom<unknown>(undefined, null, true, 0, -1, 1.5, "", "not valid", [], {})

export const unsupported = (ctx: Context, what: string): never => {
  throw new UnsupportedSchema(ctx.path, `${what} is not supported`)
}

export const at = (ctx: Context, segment: string): Context => ({ ...ctx, path: `${ctx.path}${segment}` })

/** A leaf: its generator, filtered by its checks; its refusals from wrong types, its own candidates and unfiltered values. */
export const derived = (
  schema: z.core.$ZodType,
  ctx: Context,
  base: fc.Arbitrary<unknown>,
  candidates: (base: fc.Arbitrary<unknown>) => ReadonlyArray<fc.Arbitrary<unknown> | undefined>
): Derived => ({
  ...enforce(schema, base, ctx),
  invalid: once(() => refusedOf(schema, [wrongTypes, base, ...candidates(base)]))
})

/** The name of a check the converter does not read, for its message. */
export const checkName = (check: SchemaWalk.Check): string => (check.check === "other" ? check.name : check.check)

/** The bounds of a string's or an array's length. */
export const lengthBounds = (checks: ReadonlyArray<SchemaWalk.Check>): { min: number; max: number | undefined } => {
  let min = 0
  let max: number | undefined
  for (const check of checks) {
    if (check.check === "min_length") min = Math.max(min, check.minimum)
    if (check.check === "max_length") max = max === undefined ? check.maximum : Math.min(max, check.maximum)
    if (check.check === "length_equals") {
      min = check.length
      max = min
    }
  }
  return { min, max }
}
