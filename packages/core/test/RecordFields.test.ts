import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { brand } from "../src/Ids.js"
import { aggregate, normalise, withComputed } from "../src/Records/RecordFields.js"
import { RecordTypeId } from "../src/Records/RecordIds.js"
import type { RecordType } from "../src/Records/RecordTypes.js"

const OPTIONS = ["red", "green", "blue"]

const TYPE: RecordType = {
  id: brand(RecordTypeId, "8c1d3a1e-6c55-4a8e-9d4e-1f0b8a7c2d11"),
  key: "project",
  name: "Project",
  fields: [
    { key: "title_text", type: "text", required: false },
    { key: "budget", type: "number", required: false },
    { key: "qty", type: "number", required: false },
    { key: "starts", type: "date", required: false },
    { key: "billable", type: "boolean", required: false },
    { key: "colour", type: "select", required: false, options: OPTIONS },
    { key: "tags", type: "multiselect", required: false, options: OPTIONS },
    { key: "parts", type: "relation", required: false, target: "part" },
    { key: "total", type: "formula", expression: "budget * qty" },
    { key: "weight", type: "rollup", rollup: { relation: "parts", field: "kg", aggregate: "sum" } }
  ]
}
const DEFINED = new Set(TYPE.fields.map((field) => field.key))

/** A valid value for each settable field. */
const validValues = fc.record(
  {
    title_text: fc.string({ maxLength: 20 }),
    budget: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }),
    qty: fc.integer(),
    starts: fc
      .date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2999-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    billable: fc.boolean(),
    colour: fc.constantFrom(...OPTIONS),
    tags: fc.uniqueArray(fc.constantFrom(...OPTIONS)),
    parts: fc.uniqueArray(fc.uuid(), { maxLength: 5 })
  },
  { requiredKeys: [] }
)

const undefinedKeys = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 10 }).filter((key) => !DEFINED.has(key) && key !== "__proto__"),
  fc.jsonValue()
)

describe("RecordFields.normalise", () => {
  it("stores exactly the defined keys sent and lists every other key in ignored_fields", () => {
    fc.assert(
      fc.property(validValues, undefinedKeys, (valid, extra) => {
        const input = { ...extra, ...valid }
        const result = Either.getOrThrow(normalise(TYPE, input))
        expect(Object.keys(result.custom).sort()).toEqual(Object.keys(valid).sort())
        expect([...result.ignored].sort()).toEqual(Object.keys(extra).sort())
        expect(result.references.map((ref) => ref.field)).toEqual("parts" in valid ? ["custom.parts"] : [])
      })
    )
  })

  it("is idempotent: what it stores normalises to itself, with nothing ignored", () => {
    fc.assert(
      fc.property(validValues, (valid) => {
        const once = Either.getOrThrow(normalise(TYPE, valid))
        const twice = Either.getOrThrow(normalise(TYPE, once.custom))
        expect(twice.custom).toEqual(once.custom)
        expect(twice.ignored).toEqual([])
      })
    )
  })

  it("accepts only listed options for select and multiselect, naming the field otherwise", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string()), (colour, tags) => {
        const selected = normalise(TYPE, { colour })
        expect(Either.isRight(selected)).toBe(OPTIONS.includes(colour))
        const multi = normalise(TYPE, { tags })
        expect(Either.isRight(multi)).toBe(tags.every((tag) => OPTIONS.includes(tag)))
        for (const [result, path] of [
          [selected, "custom.colour"],
          [multi, "custom.tags"]
        ] as const)
          if (Either.isLeft(result)) expect(result.left.detail.map((issue) => issue.path)).toEqual([path])
      })
    )
  })

  it("refuses a value of the wrong kind for every field type", () => {
    const wrong: Record<string, ReadonlyArray<unknown>> = {
      title_text: [1, true, ["x"], "x".repeat(10_001)],
      budget: ["1", true, [1], {}],
      starts: ["2026-02-30", "2026-1-1", "tomorrow", 20260101],
      billable: ["true", 1, []],
      colour: [["red"], 1],
      tags: ["red", [1], ["red", "pink"]],
      parts: ["7b7c9a1e-6c55-4a8e-9d4e-1f0b8a7c2d11", ["not-a-uuid"], [1]]
    }
    for (const [key, values] of Object.entries(wrong))
      for (const value of values) {
        const result = normalise(TYPE, { [key]: value })
        expect(Either.isLeft(result), `${key} ${JSON.stringify(value)}`).toBe(true)
        if (Either.isLeft(result))
          expect(result.left.detail[0]).toMatchObject({ path: `custom.${key}`, code: "invalid_value" })
      }
  })

  it("never lets computed fields be set, whatever the value", () => {
    fc.assert(
      fc.property(fc.constantFrom("total", "weight"), fc.jsonValue(), validValues, (key, value, valid) => {
        const result = normalise(TYPE, { ...valid, [key]: value })
        expect(Either.isLeft(result)).toBe(true)
        if (Either.isLeft(result))
          expect(result.left.detail).toEqual([expect.objectContaining({ path: `custom.${key}`, code: "read_only" })])
      })
    )
  })

  it("on a change keeps keys not sent, replaces those sent and clears those sent as null", () => {
    fc.assert(
      fc.property(validValues, validValues, fc.subarray(["budget", "colour", "starts"]), (current, sent, cleared) => {
        const stored = Either.getOrThrow(normalise(TYPE, current)).custom
        const patch = { ...sent, ...Object.fromEntries(cleared.map((key) => [key, null])) }
        const next = Either.getOrThrow(normalise(TYPE, patch, stored)).custom
        const expected = { ...stored, ...Either.getOrThrow(normalise(TYPE, sent)).custom }
        for (const key of cleared) delete expected[key]
        expect(next).toEqual(expected)
      })
    )
  })

  it("requires required fields on create, and refuses clearing them later", () => {
    const strict: RecordType = {
      ...TYPE,
      fields: [{ key: "stage", type: "select", required: true, options: ["a"] }, ...TYPE.fields]
    }
    const missing = normalise(strict, { budget: 1 })
    expect(Either.isLeft(missing) && missing.left.detail).toEqual([
      { path: "custom.stage", message: "is required", code: "required" }
    ])
    expect(Either.isRight(normalise(strict, { budget: 1 }, { stage: "a" }))).toBe(true)
    expect(Either.isLeft(normalise(strict, { stage: null }, { stage: "a" }))).toBe(true)
  })
})

describe("RecordFields.withComputed", () => {
  it("adds the formula over the record's own numbers and the rollup over the linked records", () => {
    const parts = [{ kg: 1.5 }, { kg: 2 }, { kg: "heavy" }, {}]
    const shown = withComputed(TYPE, { budget: 2.5, qty: 4, parts: ["a", "b"] }, () => parts)
    expect(shown).toEqual({ budget: 2.5, qty: 4, parts: ["a", "b"], total: 10, weight: 3.5 })
    expect(withComputed(TYPE, { budget: 1 }, () => [])).toEqual({ budget: 1, total: null, weight: 0 })
  })

  it("aggregates: sum and count of nothing are 0, min, max and average of nothing are null, min ≤ avg ≤ max", () => {
    expect(aggregate("sum", [])).toBe(0)
    expect(aggregate("count", [])).toBe(0)
    for (const kind of ["min", "max", "avg"] as const) expect(aggregate(kind, [])).toBeNull()
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1e6, max: 1e6 }), { minLength: 1 }), (values) => {
        expect(aggregate("count", values)).toBe(values.length)
        expect(aggregate("sum", values)).toBe(values.reduce((a, b) => a + b, 0))
        const [min, avg, max] = [aggregate("min", values)!, aggregate("avg", values)!, aggregate("max", values)!]
        expect(min).toBe(Math.min(...values))
        expect(max).toBe(Math.max(...values))
        expect(min <= avg + 1e-9 && avg <= max + 1e-9).toBe(true)
      })
    )
  })
})
