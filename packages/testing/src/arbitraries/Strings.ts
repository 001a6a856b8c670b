/** Strings: lengths, formats and patterns read from the schema; what a pattern cannot say is filtered for. */
import type { SchemaWalk } from "@crm/core"
import fc from "fast-check"
import { type Context, checkName, lengthBounds, once, unsupported } from "./Derivation.js"

const STRING_CHECKS: ReadonlySet<string> = new Set([
  "min_length",
  "max_length",
  "length_equals",
  "string_format",
  "overwrite",
  "custom"
])

export const stringOf = (walked: SchemaWalk.NodeOf<"string">, ctx: Context): fc.Arbitrary<unknown> => {
  const patterns: Array<RegExp> = []
  for (const check of walked.checks) {
    if (!STRING_CHECKS.has(check.check)) unsupported(ctx, `the string check "${checkName(check)}"`)
    if (check.check === "string_format" && check.pattern !== undefined) patterns.push(check.pattern)
  }
  if (walked.format === "url") return webUrl()
  if (walked.format !== undefined) {
    if (walked.pattern === undefined) unsupported(ctx, `the string format "${walked.format}"`)
    patterns.unshift(walked.pattern!)
  }
  const { min, max } = lengthBounds(walked.checks)
  if (patterns.length === 0) return fc.string({ minLength: min, ...(max === undefined ? {} : { maxLength: max }) })
  try {
    return matching(withoutLookarounds(patterns[0]!))
  } catch (error) {
    return unsupported(ctx, `the pattern ${patterns[0]} (${String(error)})`)
  }
}

/**
 * Web URLs: `fc.webUrl`'s authorities with plain path segments and queries (its own percent-encoded
 * ones take seconds to build).
 */
const webUrl = once(() =>
  fc
    .tuple(
      fc.constantFrom("https", "http"),
      fc.webAuthority(),
      fc.array(fc.stringMatching(/^[\w.~-]{1,12}$/), { maxLength: 3 }),
      fc.option(fc.stringMatching(/^[\w=&-]{1,16}$/), { nil: undefined })
    )
    .map(
      ([scheme, authority, segments, query]) =>
        `${scheme}://${authority}${segments.map((segment) => `/${segment}`).join("")}${query === undefined ? "" : `?${query}`}`
    )
)

export const stringRefusals = (walked: SchemaWalk.NodeOf<"string">, base: fc.Arbitrary<unknown>) => {
  const { min, max } = lengthBounds(walked.checks)
  return [
    fc.string(),
    base.map((value) => ` ${String(value)}!`),
    max === undefined ? undefined : fc.nat(3).map((n) => "x".repeat(max + 1 + n)),
    min === 0 ? undefined : fc.constant("x".repeat(min - 1))
  ]
}

/** `fc.stringMatching` takes tens of milliseconds to build: one per pattern (each `z.uuid()` is a schema of its own). */
const matchers = new Map<string, fc.Arbitrary<string>>()

const matching = (pattern: RegExp): fc.Arbitrary<string> => {
  const key = `${pattern.flags}/${pattern.source}`
  let matcher = matchers.get(key)
  if (matcher === undefined) {
    matcher = fc.stringMatching(pattern)
    matchers.set(key, matcher)
  }
  return matcher
}

/**
 * The pattern without its lookaheads and lookbehinds, which fast-check cannot generate from:
 * it generates a superset, and the schema's own check filters it back.
 */
const withoutLookarounds = (pattern: RegExp): RegExp => {
  const source = pattern.source
  let out = ""
  for (let i = 0; i < source.length; i++) {
    if (source[i] === "\\") {
      out += source.slice(i, i + 2)
      i++
    } else if (source[i] === "[") {
      const end = classEnd(source, i)
      out += source.slice(i, end + 1)
      i = end
    } else if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) {
      i = groupEnd(source, i)
    } else {
      out += source[i]
    }
  }
  return new RegExp(out, pattern.flags)
}

const classEnd = (source: string, start: number): number => {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === "\\") i++
    else if (source[i] === "]" && i > start + 1) return i
  }
  return source.length
}

const groupEnd = (source: string, start: number): number => {
  let depth = 0
  for (let i = start; i < source.length; i++) {
    if (source[i] === "\\") i++
    else if (source[i] === "[") i = classEnd(source, i)
    else if (source[i] === "(") depth++
    else if (source[i] === ")" && --depth === 0) return i
  }
  return source.length
}
