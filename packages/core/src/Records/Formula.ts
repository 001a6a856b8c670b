/**
 * The formula language of record fields, as pure functions: arithmetic over the number fields of
 * the same record. `price * quantity`, `(net + 10) / 2`, `-discount`: numbers, field keys,
 * `+ - * /`, unary minus and parentheses, with the usual precedence. Nothing is ever handed to
 * `eval`; a formula is parsed once into a tree and the tree is evaluated.
 */
import * as Either from "effect/Either"

export type Expr =
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "field"; readonly key: string }
  | { readonly kind: "negate"; readonly operand: Expr }
  | { readonly kind: "binary"; readonly op: "+" | "-" | "*" | "/"; readonly left: Expr; readonly right: Expr }

export const MAX_LENGTH = 500
/** Deep enough for any formula a person writes, shallow enough that the recursive parser cannot overflow. */
export const MAX_DEPTH = 50

type Token =
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "field"; readonly key: string }
  | { readonly kind: "op"; readonly op: "+" | "-" | "*" | "/" | "(" | ")" }

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/()]))/y

const tokenize = (text: string): Either.Either<ReadonlyArray<Token>, string> => {
  const tokens: Array<Token> = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < text.length) {
    if (text.slice(TOKEN.lastIndex).trim() === "") break
    const at = TOKEN.lastIndex
    const match = TOKEN.exec(text)
    if (match === null) return Either.left(`unexpected character at position ${at + 1}`)
    if (match[1] !== undefined) tokens.push({ kind: "number", value: Number(match[1]) })
    else if (match[2] !== undefined) tokens.push({ kind: "field", key: match[2] })
    else tokens.push({ kind: "op", op: match[3] as "+" | "-" | "*" | "/" | "(" | ")" })
  }
  return Either.right(tokens)
}

class ParseError {
  constructor(readonly message: string) {}
}

/** Parses a formula, or says why it is not one. */
export const parse = (text: string): Either.Either<Expr, string> => {
  if (text.length > MAX_LENGTH) return Either.left(`longer than ${MAX_LENGTH} characters`)
  return Either.flatMap(tokenize(text), (tokens) => {
    let position = 0
    const peek = (): Token | undefined => tokens[position]
    const isOp = (token: Token | undefined, ...ops: ReadonlyArray<string>): boolean =>
      token?.kind === "op" && ops.includes(token.op)

    const expression = (depth: number): Expr => {
      let left = term(depth)
      while (isOp(peek(), "+", "-")) {
        const op = (tokens[position++] as { op: "+" | "-" }).op
        left = { kind: "binary", op, left, right: term(depth) }
      }
      return left
    }
    const term = (depth: number): Expr => {
      let left = factor(depth)
      while (isOp(peek(), "*", "/")) {
        const op = (tokens[position++] as { op: "*" | "/" }).op
        left = { kind: "binary", op, left, right: factor(depth) }
      }
      return left
    }
    const factor = (depth: number): Expr => {
      if (depth > MAX_DEPTH) throw new ParseError(`nested deeper than ${MAX_DEPTH} levels`)
      const token = tokens[position++]
      if (token === undefined) throw new ParseError("unexpected end of formula")
      if (token.kind === "number") return { kind: "number", value: token.value }
      if (token.kind === "field") return { kind: "field", key: token.key }
      if (token.op === "-") return { kind: "negate", operand: factor(depth + 1) }
      if (token.op === "+") return factor(depth + 1)
      if (token.op === "(") {
        const inner = expression(depth + 1)
        if (!isOp(tokens[position++], ")")) throw new ParseError("missing closing parenthesis")
        return inner
      }
      throw new ParseError(`unexpected '${token.op}'`)
    }

    try {
      const expr = expression(0)
      return position === tokens.length ? Either.right(expr) : Either.left("unexpected text after the formula")
    } catch (error) {
      if (error instanceof ParseError) return Either.left(error.message)
      throw error
    }
  })
}

/** The field keys a formula reads, each once, in order of first appearance. */
export const references = (expr: Expr): ReadonlyArray<string> => {
  const keys = new Set<string>()
  const visit = (node: Expr): void => {
    if (node.kind === "field") keys.add(node.key)
    else if (node.kind === "negate") visit(node.operand)
    else if (node.kind === "binary") {
      visit(node.left)
      visit(node.right)
    }
  }
  visit(expr)
  return [...keys]
}

const apply = (op: "+" | "-" | "*" | "/", a: number, b: number): number | null => {
  switch (op) {
    case "+":
      return a + b
    case "-":
      return a - b
    case "*":
      return a * b
    case "/":
      return b === 0 ? null : a / b
  }
}

/**
 * The value, or null when a field it reads has no number, it divides by zero, or the result is
 * not finite. Fifteen significant digits drop binary noise (`0.1 * 3` is `0.3`).
 */
export const evaluate = (expr: Expr, lookup: (key: string) => unknown): number | null => {
  const run = (node: Expr): number | null => {
    switch (node.kind) {
      case "number":
        return node.value
      case "field": {
        const value = lookup(node.key)
        return typeof value === "number" && Number.isFinite(value) ? value : null
      }
      case "negate": {
        const value = run(node.operand)
        return value === null ? null : -value
      }
      case "binary": {
        const left = run(node.left)
        const right = left === null ? null : run(node.right)
        return left === null || right === null ? null : apply(node.op, left, right)
      }
    }
  }
  const result = run(expr)
  if (result === null || !Number.isFinite(result)) return null
  const rounded = Number(result.toPrecision(15))
  return rounded === 0 ? 0 : rounded
}
