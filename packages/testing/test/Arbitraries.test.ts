/**
 * The converter on every zod schema `@crm/core` exports: `valid` values pass the schema and
 * `invalid` values fail it. Schemas it cannot derive are named here, so a new one shows up as a
 * failure rather than as a silently missing arbitrary.
 */
import * as Core from "@crm/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import * as Arbitraries from "../src/Arbitraries.js"

/** Enough to meet each schema's branches on every run, few enough that the whole file takes seconds. */
const RUNS = 20

/** Schemas without valid values (none today: those with refinements the converter cannot read have `coreOverrides`). */
const UNSUPPORTED: ReadonlyArray<string> = []
/** Schemas that accept every value, so no invalid one exists. */
const ACCEPTS_ALL: ReadonlyArray<string> = []

/** Walked here independently of `catalogue()`, so a schema the catalogue missed still gets tested. */
const exported = (() => {
  const found: Array<{ readonly name: string; readonly schema: z.ZodType }> = []
  const walk = (namespace: object, prefix: string) => {
    for (const [key, value] of Object.entries(namespace)) {
      if (value instanceof z.ZodType) found.push({ name: `${prefix}${key}`, schema: value })
      else if (Object.prototype.toString.call(value) === "[object Module]") walk(value, `${prefix}${key}.`)
    }
  }
  walk(Core, "")
  return found
})()

const refusal = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value)
  return result.success
    ? ""
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")
}

const unsupportedOf = (derive: () => unknown): string | undefined => {
  try {
    derive()
    return undefined
  } catch (error) {
    if (error instanceof Arbitraries.UnsupportedSchema) return error.message
    throw error
  }
}

describe("Arbitraries on the core's schemas", () => {
  it("walks every namespace, nested ones included, as the catalogue does", () => {
    expect(exported.length).toBeGreaterThan(200)
    expect(exported.map((s) => s.name)).toContain("Invoicing.PaymentCreate")
    expect(Arbitraries.catalogue().map((s) => s.name)).toEqual(exported.map((s) => s.name))
  })

  it("names the schemas it cannot derive", () => {
    const unsupported = exported.flatMap(({ name, schema }) =>
      unsupportedOf(() => Arbitraries.valid(schema, { name })) === undefined ? [] : [name]
    )
    const acceptsAll = exported.flatMap(({ name, schema }) =>
      unsupportedOf(() => Arbitraries.invalid(schema, { name })) === undefined ? [] : [name]
    )
    expect({ unsupported, acceptsAll }).toEqual({ unsupported: UNSUPPORTED, acceptsAll: ACCEPTS_ALL })
  })

  for (const { name, schema } of exported) {
    it.skipIf(UNSUPPORTED.includes(name))(`${name}: valid values pass`, () => {
      fc.assert(
        fc.property(Arbitraries.valid(schema, { name }), (value) => {
          const refused = refusal(schema, value)
          if (refused !== "") throw new Error(`refused: ${refused}`)
        }),
        { numRuns: RUNS }
      )
    })
    it.skipIf(ACCEPTS_ALL.includes(name))(`${name}: invalid values fail`, () => {
      fc.assert(
        fc.property(Arbitraries.invalid(schema, { name }), (value) => !schema.safeParse(value).success),
        { numRuns: RUNS }
      )
    })
  }
})

describe("Arbitraries on schemas of its own", () => {
  const Magic = z.string().refine((value) => value === "magic word")

  it("says which schema it cannot derive, down to the field", () => {
    const schema = z.object({ id: z.uuid(), secret: Magic })
    expect(() => Arbitraries.valid(schema, { name: "Door" })).toThrow(Arbitraries.UnsupportedSchema)
    expect(() => Arbitraries.valid(schema, { name: "Door" })).toThrow(/Door.*Door\.secret/)
  })

  it("leaves out an optional field it cannot derive, and takes an override for it", () => {
    const optional = z.object({ secret: Magic.optional() })
    fc.assert(fc.property(Arbitraries.valid(optional), (value) => value.secret === undefined))
    const overrides = new Map([[Magic, fc.constant("magic word")]])
    const required = z.object({ secret: Magic })
    fc.assert(
      fc.property(Arbitraries.valid(required, { overrides }), (value) => value.secret === "magic word"),
      { numRuns: 10 }
    )
  })

  it("enforces checks carried by a default or an optional", () => {
    const distinct = z
      .array(z.number().int().min(0).max(3))
      .default([])
      .refine((values) => new Set(values).size === values.length)
    fc.assert(
      fc.property(Arbitraries.valid(distinct), (value) => distinct.safeParse(value).success),
      { numRuns: 50 }
    )
  })

  it("parses what it generates into the type a service takes", () => {
    const schema = z.strictObject({ email: z.email().toLowerCase(), tags: z.array(z.string()).default([]) })
    fc.assert(
      fc.property(
        Arbitraries.parsed(schema),
        (value) => Array.isArray(value.tags) && value.email === value.email.toLowerCase()
      ),
      { numRuns: 20 }
    )
  })

  it("refuses the wrong key types of a record and the unknown keys of a strict object", () => {
    const scores = z.record(z.string().regex(/^[a-z]+$/), z.number())
    fc.assert(
      fc.property(Arbitraries.invalid(scores), (value) => !scores.safeParse(value).success),
      { numRuns: 50 }
    )
    const strict = z.strictObject({ a: z.boolean() })
    const keys = fc.sample(Arbitraries.invalid(strict), { numRuns: 200, seed: 1 })
    expect(keys.some((value) => typeof value === "object" && value !== null && "unknown key" in value)).toBe(true)
  })
})
