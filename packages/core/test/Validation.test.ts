import { Contacts, Validation } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

describe("Validation", () => {
  it("names each unknown field and each wrong one by its path", () => {
    const result = Validation.parse(Contacts.ContactCreate, { first_name: 1, extra: true, other: 2 })
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left.detail.map((issue) => issue.path).sort()).toEqual(["extra", "first_name", "other"])
      for (const issue of result.left.detail) expect(issue.message.length).toBeGreaterThan(0)
    }
  })

  it("tells an empty PATCH from a PATCH with an unknown field beside a known one", () => {
    const empty = Validation.parsePatch(Contacts.ContactPatch, { unknown: 1 })
    expect(Either.isLeft(empty) && empty.left._tag).toBe("NoFieldsToUpdate")
    const mixed = Validation.parsePatch(Contacts.ContactPatch, { first_name: "a", unknown: 1 })
    expect(Either.isLeft(mixed) && mixed.left._tag).toBe("ValidationFailed")
    const fine = Validation.parsePatch(Contacts.ContactPatch, { first_name: null })
    expect(Either.isRight(fine)).toBe(true)
  })
})

/** A value wrapped in `levels` containers, each an array or an object under an awkward key. */
const nested = (levels: ReadonlyArray<{ readonly key: string | undefined }>, inner: unknown): unknown =>
  levels.reduceRight<unknown>((value, level) => (level.key === undefined ? [value] : { [level.key]: value }), inner)

/** Keys that a careless scanner would misread: quotes, escapes, brackets and commas inside strings. */
const awkwardKey = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('"', "\\", "[", "{", ",", '\\"]}', "a,b:c"))
const level = fc.record({ key: fc.option(awkwardKey, { nil: undefined }) })

describe("input bounds", () => {
  it("the scan of the text and the walk of the value agree on every nesting, naming the same path", () => {
    fc.assert(
      fc.property(
        fc.array(level, { minLength: 0, maxLength: Validation.MAX_DEPTH + 8 }),
        fc.jsonValue({ maxDepth: 2 }),
        (levels, inner) => {
          const value = nested(levels, inner)
          const text = JSON.stringify(value)
          const scanned = Validation.nestingIssue(text)
          const walked = Validation.unsafeInput(value).find((issue) => issue.code === "too_deep")
          expect(scanned).toEqual(walked)
          const depth = levels.length + depthOf(inner)
          expect(scanned !== undefined).toBe(depth > Validation.MAX_DEPTH)
          if (scanned !== undefined) {
            const path = levels.slice(0, Validation.MAX_DEPTH).map((l) => (l.key === undefined ? "0" : l.key))
            // Past the wrapping levels the walk goes on into the generated value, whose path the walk names.
            if (levels.length > Validation.MAX_DEPTH) expect(scanned.path).toBe(path.join("."))
          }
        }
      )
    )
  })

  it("refuses a megabyte of nesting by a scan, without parsing it", () => {
    const text = `{"custom":${"[".repeat(500_000)}${"]".repeat(500_000)}}`
    const refused = Validation.parseJson(text)
    expect(Either.isLeft(refused) && refused.left).toMatchObject({
      code: "validation_failed",
      detail: [{ path: ["custom", ...Array(Validation.MAX_DEPTH - 1).fill("0")].join("."), code: "too_deep" }]
    })
  })

  it("refuses a text with more members than the limit, keys or elements, naming where the limit ran out", () => {
    const keys = `{"custom":{${Array.from({ length: Validation.MAX_MEMBERS }, (_, i) => `"k${i}":0`).join(",")}}}`
    // The path names the first member past the limit: "custom" is the first, so the 20,000th of its keys.
    expect(Validation.nestingIssue(keys)).toMatchObject({ code: "too_many_members", path: "custom.k19999" })
    const elements = `{"a":[1,[${Array(Validation.MAX_MEMBERS + 1)
      .fill(0)
      .join(",")}]]}`
    expect(Validation.nestingIssue(elements)).toMatchObject({ code: "too_many_members", path: "a.1.19999" })
    const fits = `{"items":[${Array(Validation.MAX_MEMBERS - 2)
      .fill('"x,y"')
      .join(",")}]}`
    expect(Validation.nestingIssue(fits)).toBeUndefined()
  })

  it("walks a value of any shape once: wide, deep and unstorable text are named", () => {
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))
    expect(Validation.unsafeInput(wide)).toEqual([])
    const deep = nested(
      Array.from({ length: 100_000 }, () => ({ key: undefined })),
      "x"
    )
    expect(Validation.unsafeInput(deep)).toEqual([
      { path: Array(Validation.MAX_DEPTH).fill("0").join("."), message: expect.any(String), code: "too_deep" }
    ])
    expect(
      Validation.unsafeInput({ a: [{ "b\u0000": 1 }, "\ud800"] })
        .map((issue) => issue.path)
        .sort()
    ).toEqual(["a.0.b\u0000", "a.1"])
  })
})

const depthOf = (value: unknown): number =>
  value !== null && typeof value === "object"
    ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf))
    : 0
