/**
 * Pure rules of an import batch: splitting the JSON lines text, reading one line's envelope
 * (`type`, optional `ref`) and resolving `"$ref:<name>"` values to the ids earlier lines created.
 */
import * as Either from "effect/Either"
import { invalidField, ValidationFailed, type ValidationIssue } from "../Errors.js"

export const MAX_LINES = 5000
export const REF_PREFIX = "$ref:"
const REF_NAME = /^[A-Za-z0-9._:-]{1,100}$/

/** One non-blank line of the batch with its 1-based line number in the text. */
export interface SourceLine {
  readonly line: number
  readonly text: string
}

/** The non-blank lines; `\n` and `\r\n` both end a line. */
export const splitLines = (text: string): ReadonlyArray<SourceLine> =>
  text.split(/\r?\n/).flatMap((raw, index) => (raw.trim() === "" ? [] : [{ line: index + 1, text: raw }]))

/** A line's envelope: which kind it is, the name later lines may refer to it by, and the fields. */
export interface Envelope {
  readonly type: string
  readonly ref: string | undefined
  readonly fields: Readonly<Record<string, unknown>>
}

export const envelopeOf = (value: unknown): Either.Either<Envelope, ValidationFailed> => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return Either.left(invalidField("", "each line must be a JSON object with a `type`", "invalid_type"))
  }
  const { type, ref, ...fields } = value as Record<string, unknown>
  if (typeof type !== "string" || type === "") {
    return Either.left(invalidField("type", "a non-empty string naming the kind of record is required", "invalid_type"))
  }
  if (ref !== undefined && (typeof ref !== "string" || !REF_NAME.test(ref))) {
    return Either.left(
      invalidField("ref", "1 to 100 letters, digits or . _ : - naming this line for later lines", "invalid_ref")
    )
  }
  return Either.right({ type, ref, fields })
}

/**
 * Replaces every string value that is exactly `"$ref:<name>"`, at any depth (id fields, line items,
 * relation fields in `custom`), with the id created by the earlier line named `<name>`. A name no
 * earlier line carries is a validation issue at that path.
 */
export const resolveRefs = (
  fields: Readonly<Record<string, unknown>>,
  ids: ReadonlyMap<string, string>
): Either.Either<Record<string, unknown>, ValidationFailed> => {
  const issues: Array<ValidationIssue> = []
  const walk = (value: unknown, path: ReadonlyArray<string>): unknown => {
    if (typeof value === "string") {
      if (!value.startsWith(REF_PREFIX)) return value
      const name = value.slice(REF_PREFIX.length)
      const id = ids.get(name)
      if (id === undefined) {
        issues.push({ path: path.join("."), message: `no earlier line has ref ${name}`, code: "unknown_ref" })
      }
      return id ?? value
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, String(index)]))
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, [...path, key])]))
    }
    return value
  }
  const resolved = walk(fields, []) as Record<string, unknown>
  return issues.length === 0 ? Either.right(resolved) : Either.left(new ValidationFailed({ detail: issues }))
}
