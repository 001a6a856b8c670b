/**
 * Turning zod results into the contract's `validation_failed` detail, shared by every
 * transport so that REST and MCP name the same paths with the same messages.
 */
import * as Either from "effect/Either"
import type { z } from "zod"
import { NoFieldsToUpdate, ValidationFailed, type ValidationIssue } from "./Errors.js"

export const issuesOf = (error: z.ZodError): ReadonlyArray<ValidationIssue> =>
  error.issues.flatMap((issue): ReadonlyArray<ValidationIssue> => {
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
