import { Import } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { ImportLines } = Import

const refName = fc.stringMatching(/^[A-Za-z0-9._:-]{1,20}$/)
const uuid = fc.uuid()

/** JSON values with no string starting with `$ref:`. */
const plain = fc.jsonValue().filter((value) => !JSON.stringify(value).includes(ImportLines.REF_PREFIX))

describe("ImportLines.splitLines", () => {
  it("keeps non-blank lines with their 1-based numbers, for \\n and \\r\\n", () => {
    expect(ImportLines.splitLines('{"a":1}\r\n\n  \n{"b":2}\n')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 4, text: '{"b":2}' }
    ])
    expect(ImportLines.splitLines("")).toEqual([])
  })

  it("numbers every line as its position in the text", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(""), fc.constant("  "), fc.json())), (rows) => {
        const split = ImportLines.splitLines(rows.join("\n"))
        expect(split.map((entry) => entry.text)).toEqual(rows.filter((row) => row.trim() !== ""))
        for (const entry of split) expect(rows[entry.line - 1]).toBe(entry.text)
      })
    )
  })
})

describe("ImportLines.envelopeOf", () => {
  it("splits type and ref from the fields", () => {
    expect(ImportLines.envelopeOf({ type: "contact", ref: "a", first_name: "A" })).toEqual(
      Either.right({ type: "contact", ref: "a", fields: { first_name: "A" } })
    )
    expect(ImportLines.envelopeOf({ type: "contact" })).toEqual(
      Either.right({ type: "contact", ref: undefined, fields: {} })
    )
  })

  it("refuses a line that is not an object, has no type or a malformed ref", () => {
    for (const [value, path] of [
      [[1], ""],
      ["x", ""],
      [null, ""],
      [{ first_name: "A" }, "type"],
      [{ type: 3 }, "type"],
      [{ type: "contact", ref: "" }, "ref"],
      [{ type: "contact", ref: "has space" }, "ref"],
      [{ type: "contact", ref: 7 }, "ref"]
    ] as const) {
      const result = ImportLines.envelopeOf(value)
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(result.left.detail[0]!.path).toBe(path)
    }
  })
})

describe("ImportLines.resolveRefs", () => {
  it("leaves fields without references unchanged", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), plain), (fields) => {
        expect(ImportLines.resolveRefs(fields, new Map())).toEqual(Either.right(fields))
      })
    )
  })

  it("replaces every known reference at any depth with its id", () => {
    fc.assert(
      fc.property(refName, uuid, (name, id) => {
        const ref = `${ImportLines.REF_PREFIX}${name}`
        const fields = { contact_id: ref, items: [{ product_id: ref, name: ref.slice(1) }], custom: { links: [ref] } }
        expect(ImportLines.resolveRefs(fields, new Map([[name, id]]))).toEqual(
          Either.right({ contact_id: id, items: [{ product_id: id, name: ref.slice(1) }], custom: { links: [id] } })
        )
      })
    )
  })

  it("names the path of every unknown reference", () => {
    const result = ImportLines.resolveRefs(
      { contact_id: "$ref:ghost", items: [{ product_id: "$ref:gone" }], deal_id: "$ref:known" },
      new Map([["known", "00000000-0000-4000-8000-000000000000"]])
    )
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left.detail.map((issue) => [issue.path, issue.code])).toEqual([
        ["contact_id", "unknown_ref"],
        ["items.0.product_id", "unknown_ref"]
      ])
    }
  })
})
