/**
 * Turning zod results into the contract's `validation_failed` detail, shared by every
 * transport so that REST and MCP name the same paths with the same messages.
 */
import * as Either from "effect/Either"
import { z } from "zod"
import { type ValidationIssue as Issue, NoFieldsToUpdate, ValidationFailed } from "./Errors.js"

/** One entry of the `validation_failed` detail, as the transports describe it to their callers. */
export const ValidationIssue = z.object({
  path: z.string().describe("where in the input, dot-separated (items.0.quantity); empty for the input as a whole"),
  message: z.string(),
  code: z.string().describe("a machine-readable reason, e.g. invalid_type, too_small, unrecognized_key")
}) satisfies z.ZodType<Issue>

export const issuesOf = (error: z.ZodError): ReadonlyArray<Issue> =>
  error.issues.flatMap((issue): ReadonlyArray<Issue> => {
    const base = issue.path.map(String)
    // An unknown key is reported once per key, with the key in the path, so a client sees which field to drop.
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: [...base, key].join("."),
        message: "unknown field",
        code: "unrecognized_key"
      }))
    }
    return [{ path: base.join("."), message: issue.message, code: issue.code }]
  })

export const parse = <S extends z.ZodType>(schema: S, input: unknown): Either.Either<z.output<S>, ValidationFailed> => {
  const result = schema.safeParse(input)
  return result.success
    ? Either.right(result.data)
    : Either.left(new ValidationFailed({ detail: issuesOf(result.error) }))
}

/**
 * A PATCH body with no field the schema knows is `no_fields_to_update`; one that mixes known
 * and unknown fields is `validation_failed` naming the unknown ones (decisions page).
 */
export const parsePatch = <S extends z.ZodObject>(
  schema: S,
  input: unknown
): Either.Either<z.output<S>, ValidationFailed | NoFieldsToUpdate> => {
  if (input !== null && typeof input === "object" && !Array.isArray(input)) {
    const known = Object.keys(input).filter((key) => key in schema.shape)
    if (known.length === 0) {
      return Either.left(new NoFieldsToUpdate({ detail: "the body names no field that can be updated" }))
    }
  }
  return parse(schema, input)
}

// PostgreSQL keeps neither a NUL character nor an unpaired surrogate in text or jsonb: such input
// is refused up front as a validation issue rather than surfacing as a 500 from the database.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const isUnstorable = (text: string): boolean => text.includes("\u0000") || LONE_SURROGATE.test(text)

/**
 * Every string (value or key) of a parsed JSON value that PostgreSQL cannot store, as validation
 * issues (at most 20); iterative, so any depth is safe. Shared by REST and MCP.
 */
export const unstorableText = (input: unknown): ReadonlyArray<Issue> => {
  const issues: Array<Issue> = []
  const pending: Array<{ readonly value: unknown; readonly path: ReadonlyArray<string> }> = [{ value: input, path: [] }]
  const refuse = (path: ReadonlyArray<string>) =>
    issues.push({
      path: path.join("."),
      message: "must not contain NUL characters or unpaired surrogates",
      code: "invalid_characters"
    })
  while (pending.length > 0 && issues.length < 20) {
    const { value, path } = pending.pop()!
    if (typeof value === "string") {
      if (isUnstorable(value)) refuse(path)
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        pending.push({ value: item, path: [...path, String(index)] })
      })
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (isUnstorable(key)) refuse([...path, key])
        else pending.push({ value: item, path: [...path, key] })
      }
    }
  }
  return issues
}

/** `validation_failed` naming every unstorable string of the input, or nothing. */
export const refuseUnstorable = (input: unknown): Either.Either<void, ValidationFailed> => {
  const issues = unstorableText(input)
  return issues.length === 0 ? Either.void : Either.left(new ValidationFailed({ detail: issues }))
}
