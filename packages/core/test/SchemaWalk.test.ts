/**
 * The one reader of zod's definitions: each kind the walkers use comes out as its typed node, with
 * the schemas it holds, its values and its checks, and a fold runs one case per kind.
 */
import { describe, expect, it } from "vitest"
import { z } from "zod"
import * as Money from "../src/Money.js"
import * as SchemaWalk from "../src/SchemaWalk.js"

describe("SchemaWalk.node", () => {
  it("reads a string's format, pattern and checks", () => {
    const walked = SchemaWalk.node(z.string().min(2).max(5).regex(/^a/).trim())
    expect(walked.kind).toBe("string")
    expect(walked.checks).toEqual([
      { check: "min_length", minimum: 2 },
      { check: "max_length", maximum: 5 },
      { check: "string_format", format: "regex", pattern: /^a/ },
      { check: "overwrite" }
    ])
    const uuid = SchemaWalk.node(z.uuid())
    expect(uuid.kind === "string" && uuid.format).toBe("uuid")
    expect(uuid.kind === "string" && uuid.pattern).toBeInstanceOf(RegExp)
  })

  it("reads a number's bounds as numbers and its integer format", () => {
    expect(SchemaWalk.node(z.number().int().gt(0).lte(10)).checks).toEqual([
      { check: "number_format", format: "safeint" },
      { check: "greater_than", value: 0, inclusive: false },
      { check: "less_than", value: 10, inclusive: true }
    ])
    expect(SchemaWalk.node(z.number().refine((n) => n !== 3)).checks).toEqual([{ check: "custom" }])
  })

  it("reads the schemas a container holds, and which object keys may be left out", () => {
    const name = z.string()
    const object = SchemaWalk.node(z.strictObject({ name, age: z.number().optional(), tag: z.string().default("x") }))
    expect(object.kind === "object" && object.fields.map(({ key, optional }) => [key, optional])).toEqual([
      ["name", false],
      ["age", true],
      ["tag", true]
    ])
    expect(object.kind === "object" && object.fields[0]!.schema).toBe(name)
    expect(object.kind === "object" && SchemaWalk.node(object.catchall!).kind).toBe("never")
    expect(SchemaWalk.node(z.array(name))).toMatchObject({ kind: "array", element: name })
    expect(SchemaWalk.node(z.record(z.string(), name))).toMatchObject({ kind: "record", value: name, partial: false })
    expect(SchemaWalk.node(z.partialRecord(z.enum(["a"]), name))).toMatchObject({ kind: "record", partial: true })
    const nothing = z.null()
    expect(SchemaWalk.node(z.union([name, nothing]))).toMatchObject({ kind: "union", options: [name, nothing] })
    expect(SchemaWalk.node(name.nullable())).toMatchObject({ kind: "nullable", inner: name })
    expect(SchemaWalk.node(z.enum(["x", "y"]))).toMatchObject({ kind: "enum", values: ["x", "y"] })
    expect(SchemaWalk.node(z.literal([1, "one"]))).toMatchObject({ kind: "literal", values: [1, "one"] })
    expect(SchemaWalk.node(z.lazy(() => name)).kind === "lazy").toBe(true)
    expect(SchemaWalk.node(z.map(name, name))).toMatchObject({ kind: "other", name: "map" })
  })

  it("tells a codec from a plain pipe, and runs it both ways", () => {
    const plain = SchemaWalk.node(z.string().transform((text) => text.length))
    expect(plain.kind === "pipe" && plain.codec).toBeUndefined()
    const money = SchemaWalk.node(Money.Amount)
    if (money.kind !== "pipe" || money.codec === undefined) throw new Error("money is a codec")
    expect(SchemaWalk.node(money.in).kind).toBe("number")
    expect(money.codec.encode(money.codec.decode(12.5))).toBe(12.5)
  })
})

describe("SchemaWalk.fold", () => {
  it("runs one case per kind, the function itself for what a node holds, and `otherwise` for the rest", () => {
    const depth: (schema: SchemaWalk.Schema) => number = SchemaWalk.fold<number>({
      object: ({ fields }, self) => 1 + Math.max(0, ...fields.map(({ schema }) => self(schema))),
      array: ({ element }, self) => 1 + self(element),
      optional: ({ inner }, self) => self(inner),
      otherwise: () => 0
    })
    expect(depth(z.object({ a: z.array(z.object({ b: z.string().optional() })) }))).toBe(3)
  })
})
