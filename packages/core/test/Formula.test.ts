import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type Expr, evaluate, MAX_DEPTH, MAX_LENGTH, parse, references } from "../src/Records/Formula.js"

const KEYS = ["price", "quantity", "discount", "x_1"]

const expr: fc.Arbitrary<Expr> = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: 0, max: 1000 }).map((value): Expr => ({ kind: "number", value })),
    fc.constantFrom(...KEYS).map((key): Expr => ({ kind: "field", key })),
    tie("expr").map((operand): Expr => ({ kind: "negate", operand })),
    fc
      .record({ op: fc.constantFrom(...(["+", "-", "*", "/"] as const)), left: tie("expr"), right: tie("expr") })
      .map(({ op, left, right }): Expr => ({ kind: "binary", op, left, right }))
  )
})).expr

/** Fully parenthesised: the text means exactly the tree, whatever the precedence rules. */
const print = (node: Expr): string => {
  switch (node.kind) {
    case "number":
      return String(node.value)
    case "field":
      return node.key
    case "negate":
      return `-(${print(node.operand)})`
    case "binary":
      return `(${print(node.left)} ${node.op} ${print(node.right)})`
  }
}

const values = fc.record(Object.fromEntries(KEYS.map((key) => [key, fc.integer({ min: -50, max: 50 })])))

describe("Formula", () => {
  it("parses back every tree it could print, and the text evaluates as the tree does", () => {
    fc.assert(
      fc.property(expr, values, (tree, vals) => {
        const text = print(tree)
        fc.pre(text.length <= MAX_LENGTH)
        const parsed = parse(text)
        expect(Either.getOrThrow(parsed)).toEqual(tree)
        expect(evaluate(Either.getOrThrow(parsed), (key) => vals[key])).toEqual(evaluate(tree, (key) => vals[key]))
      })
    )
  })

  it("never throws on any text: it parses or says why not", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        const parsed = parse(text)
        if (Either.isLeft(parsed)) expect(typeof parsed.left).toBe("string")
      })
    )
    fc.assert(
      fc.property(fc.array(fc.constantFrom("(", ")", "+", "-", "*", "/", "1", "a", " ", ".", "2.5")), (parts) => {
        parse(parts.join(""))
      })
    )
  })

  it("names exactly the fields it reads, and is null while one of them has no number", () => {
    fc.assert(
      fc.property(expr, values, fc.constantFrom(...KEYS), (tree, vals, missing) => {
        const used = references(tree)
        expect(used.every((key) => print(tree).includes(key))).toBe(true)
        if (used.includes(missing)) {
          expect(evaluate(tree, (key) => (key === missing ? undefined : vals[key]))).toBeNull()
          expect(evaluate(tree, (key) => (key === missing ? "12" : vals[key]))).toBeNull()
        }
      })
    )
  })

  it("follows the usual precedence and associativity, without binary noise", () => {
    const run = (text: string, vals: Record<string, number> = {}) =>
      evaluate(Either.getOrThrow(parse(text)), (key) => vals[key])
    expect(run("price * quantity", { price: 2.5, quantity: 4 })).toBe(10)
    expect(run("1 + 2 * 3")).toBe(7)
    expect(run("(1 + 2) * 3")).toBe(9)
    expect(run("10 - 4 - 3")).toBe(3)
    expect(run("24 / 4 / 2")).toBe(3)
    expect(run("-2 * -x", { x: 3 })).toBe(6)
    expect(run("+1 - -1")).toBe(2)
    expect(run("0.1 * 3")).toBe(0.3)
    expect(run("1 / (x - x)", { x: 5 })).toBeNull()
    expect(run("-0 * 1")).toBe(0)
  })

  it("refuses what is not a formula, including nesting past the limit", () => {
    for (const text of ["", "price *", "(1 + 2", "1 + 2)", "a b", "1 ^ 2", "price; drop", "1..2", "'x'", "f(1)"])
      expect(Either.isLeft(parse(text)), text).toBe(true)
    const deep = `${"(".repeat(MAX_DEPTH + 5)}1${")".repeat(MAX_DEPTH + 5)}`
    expect(Either.isLeft(parse(deep))).toBe(true)
    expect(Either.isLeft(parse("-".repeat(MAX_LENGTH - 1) + "1"))).toBe(true)
    expect(Either.isLeft(parse("1+".repeat(MAX_LENGTH) + "1"))).toBe(true)
  })
})
