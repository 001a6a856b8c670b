/**
 * A schema's `Derived` pair, by its kind as the core's walker reads it (`SchemaWalk.node`): leaves
 * here, strings and numbers in their modules, containers in `Containers.ts`.
 */
import { SchemaWalk } from "@crm/core"
import fc from "fast-check"
import type { z } from "zod"
import { arrayOf, intersectionOf, objectOf, recordOf, unionOf } from "./Containers.js"
import {
  absent,
  type Context,
  type Derived,
  derived,
  enforce,
  type Overrides,
  once,
  refusedOf,
  unsupported,
  wrongTypes
} from "./Derivation.js"
import { numberBounds, numberOf, numberRefusals } from "./Numbers.js"
import { stringOf, stringRefusals } from "./Strings.js"

/**
 * Derivations, per overrides and schema: shared schemas (ids, timestamps, lines) are derived, and
 * their checks probed, once. A shared schema's unmet reason names the path it was first met at.
 */
const derivations = new WeakMap<Overrides, WeakMap<z.core.$ZodType, Derived>>()

export const derive = (schema: z.core.$ZodType, ctx: Context): Derived => {
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

const WRAPPERS: ReadonlySet<SchemaWalk.Kind> = new Set<SchemaWalk.Kind>([
  "nullable",
  "optional",
  "default",
  "prefault",
  "readonly",
  "catch"
])

/**
 * A wrapper may carry checks of its own (`.default([]).superRefine(...)`): its values, and what an
 * object key holds when given, are filtered by the wrapper itself.
 */
const withOwnChecks = (schema: z.core.$ZodType, made: Derived, ctx: Context): Derived => {
  const walked = SchemaWalk.node(schema)
  if (!WRAPPERS.has(walked.kind) || walked.checks.length === 0) return made
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
  const walked = SchemaWalk.node(schema)
  switch (walked.kind) {
    case "string":
      return derived(schema, ctx, stringOf(walked, ctx), (base) => stringRefusals(walked, base))
    case "number": {
      const bounds = numberBounds(walked, ctx)
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
    case "literal":
      return derived(schema, ctx, fc.constantFrom(...walked.values), () => [fc.string()])
    case "object":
      return objectOf(schema, walked, ctx, derive)
    case "array":
      return arrayOf(schema, walked, ctx, derive)
    case "record":
      return recordOf(schema, walked, ctx, derive)
    case "union":
      return unionOf(schema, walked, ctx, derive)
    case "intersection":
      return intersectionOf(schema, walked, ctx, derive)
    case "nullable": {
      const inner = derive(walked.inner, ctx)
      const valid = inner.valid === undefined ? fc.constant(null) : fc.option(inner.valid, { nil: null })
      return { valid, unmet: "", invalid: once(() => refusedOf(schema, [inner.invalid()])) }
    }
    case "optional":
    case "default":
    case "prefault": {
      const inner = derive(walked.inner, ctx)
      const valid = inner.valid === undefined ? absent : fc.option(inner.valid, { nil: undefined })
      return { valid, unmet: "", invalid: once(() => refusedOf(schema, [inner.invalid()])), inner }
    }
    case "readonly":
    case "catch": {
      // A catch accepts what its inner schema refuses: refusals are only what the schema itself refuses.
      const inner = derive(walked.inner, ctx)
      return { ...inner, invalid: once(() => refusedOf(schema, [inner.invalid()])) }
    }
    case "pipe": {
      const inner = derive(walked.in, ctx)
      if (inner.valid === undefined) return { ...inner, invalid: once(() => refusedOf(schema, [inner.invalid()])) }
      const base = inner.valid
      return { ...enforce(schema, base, ctx), invalid: once(() => refusedOf(schema, [inner.invalid(), base])) }
    }
    default:
      return unsupported(ctx, `the kind "${SchemaWalk.nameOf(walked)}"`)
  }
}
