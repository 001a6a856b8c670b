/** Numbers: bounds and integer formats read from the schema's checks. */
import type { SchemaWalk } from "@crm/core"
import fc from "fast-check"
import { type Context, checkName, unsupported } from "./Derivation.js"

export interface NumberBounds {
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

export const numberBounds = (walked: SchemaWalk.NodeOf<"number">, ctx: Context): NumberBounds => {
  let bounds: NumberBounds = { min: -Infinity, max: Infinity, minExcluded: false, maxExcluded: false, integer: false }
  const raise = (min: number, excluded: boolean) => {
    if (min > bounds.min || (min === bounds.min && excluded)) bounds = { ...bounds, min, minExcluded: excluded }
  }
  const lower = (max: number, excluded: boolean) => {
    if (max < bounds.max || (max === bounds.max && excluded)) bounds = { ...bounds, max, maxExcluded: excluded }
  }
  for (const check of walked.checks) {
    switch (check.check) {
      case "greater_than":
        raise(check.value, !check.inclusive)
        break
      case "less_than":
        lower(check.value, !check.inclusive)
        break
      case "number_format": {
        const range = INTEGER_FORMATS[check.format]
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
        unsupported(ctx, `the number check "${checkName(check)}"`)
    }
  }
  return bounds
}

export const numberOf = ({ min, max, minExcluded, maxExcluded, integer }: NumberBounds): fc.Arbitrary<unknown> => {
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

export const numberRefusals = ({ min, max, integer }: NumberBounds, base: fc.Arbitrary<unknown>) => [
  fc.constantFrom(Number.NaN, Infinity, -Infinity, "1"),
  Number.isFinite(min) ? fc.constantFrom(min, min - 1, min - 0.5) : undefined,
  Number.isFinite(max) ? fc.constantFrom(max, max + 1, max + 0.5) : undefined,
  integer ? base.map((n) => Number(n) + 0.5) : undefined
]
