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

/**
 * How deeply a request's JSON may nest (containers inside containers, the body itself being 1),
 * `custom` values included. No CRM body comes near it; a limit keeps a request's cost bounded by
 * its size, since every walker of a value (schemas, storage's JSON encoding) recurses once per level.
 */
export const MAX_DEPTH = 64

/**
 * How many members (object keys and array elements, counted over the whole text) a JSON text may
 * hold. Parsing costs most per distinct key (V8 builds a shape for each: 100,000 of them in under
 * a megabyte take a second of CPU), so a text's cost is bounded by its members, not only its bytes.
 * A batch of 100 items of 20 fields each is 2,000.
 */
export const MAX_MEMBERS = 20_000

const tooDeep = (path: string): Issue => ({
  path,
  message: `nested more than ${MAX_DEPTH} levels deep`,
  code: "too_deep"
})

/**
 * The first container of a JSON text that nests deeper than `MAX_DEPTH`, or the member past
 * `MAX_MEMBERS`, named by its path; or undefined. It reads the text once, before `JSON.parse`
 * builds anything: a megabyte of `[[[[` or of distinct keys costs a scan of a millisecond or two
 * instead of half a million arrays or shapes. It reads only structure (brackets, commas, the
 * strings that are keys), so on text that is not JSON its answer means nothing; `JSON.parse`
 * still judges that when this finds nothing.
 */
export const nestingIssue = (text: string): Issue | undefined => {
  // Per open container: whether it is an array, its current element index, and (objects) where
  // the current key's text starts and ends; kept for at most MAX_DEPTH levels.
  const isArray: Array<boolean> = []
  const index: Array<number> = []
  const keyStart: Array<number> = []
  const keyEnd: Array<number> = []
  const expectsKey: Array<boolean> = []
  let depth = 0
  let members = 0
  const pathTo = (levels: number): string => {
    const path: Array<string> = []
    for (let level = 0; level < levels; level++) {
      if (isArray[level]) path.push(String(index[level]))
      else {
        let key: unknown
        try {
          key = JSON.parse(text.slice(keyStart[level], keyEnd[level]))
        } catch {
          key = "?"
        }
        path.push(String(key))
      }
    }
    return path.join(".")
  }
  const tooMany = (): Issue => ({
    path: pathTo(depth),
    message: `more than ${MAX_MEMBERS} keys and elements in one document`,
    code: "too_many_members"
  })
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34 /* " */) {
      const start = i
      for (i++; i < length; i++) {
        const d = text.charCodeAt(i)
        if (d === 92 /* \ */) i++
        else if (d === 34) break
      }
      if (depth > 0 && !isArray[depth - 1] && expectsKey[depth - 1]) {
        keyStart[depth - 1] = start
        keyEnd[depth - 1] = i + 1
        expectsKey[depth - 1] = false
        if (++members > MAX_MEMBERS) return tooMany()
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (depth === MAX_DEPTH) return tooDeep(pathTo(depth))
      isArray[depth] = c === 91
      index[depth] = 0
      expectsKey[depth] = c === 123
      depth++
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      if (depth > 0) depth--
    } else if (c === 44 /* , */ && depth > 0) {
      if (isArray[depth - 1]) {
        index[depth - 1]!++
        if (++members > MAX_MEMBERS) return tooMany()
      } else expectsKey[depth - 1] = true
    }
  }
  return undefined
}

/** JSON text as a value, unless it nests too deeply (a `validation_failed`) or is not JSON (its parser's message). */
export const parseJson = (text: string): Either.Either<unknown, ValidationFailed | SyntaxError> => {
  const deep = nestingIssue(text)
  if (deep !== undefined) return Either.left(new ValidationFailed({ detail: [deep] }))
  try {
    return Either.right(JSON.parse(text))
  } catch (error) {
    return Either.left(error instanceof SyntaxError ? error : new SyntaxError(String(error)))
  }
}

// PostgreSQL keeps neither a NUL character nor an unpaired surrogate in text or jsonb: such input
// is refused up front as a validation issue rather than surfacing as a 500 from the database.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const isUnstorable = (text: string): boolean => text.includes("\u0000") || LONE_SURROGATE.test(text)

/** Enough to tell a client what to fix; a value with more is not walked further. */
const MAX_ISSUES = 20

/** A container met by the walk, with the way back to the input's root (paths are spelled only for an issue). */
interface Step {
  readonly value: object
  readonly key: string | number
  readonly parent: Step | undefined
  readonly depth: number
}

const pathOf = (step: Step | undefined, last?: string | number): string => {
  const names: Array<string> = last === undefined ? [] : [String(last)]
  for (let at = step; at?.parent !== undefined; at = at.parent) names.push(String(at.key))
  return names.reverse().join(".")
}

/**
 * What a parsed value (a body, a query, path parameters, a tool's arguments) holds that no request
 * may: containers nested deeper than `MAX_DEPTH`, and strings (values or keys) that PostgreSQL
 * cannot store, as validation issues (at most 20). One visit per value, iterative, and nothing
 * allocated for a value that is not a container, so its time is linear in the value's size and
 * small beside parsing it, whatever its shape.
 */
export const unsafeInput = (input: unknown): ReadonlyArray<Issue> => {
  const issues: Array<Issue> = []
  const refuse = (parent: Step | undefined, key: string | number | undefined) =>
    issues.length < MAX_ISSUES &&
    issues.push({
      path: pathOf(parent, key),
      message: "must not contain NUL characters or unpaired surrogates",
      code: "invalid_characters"
    })
  const pending: Array<Step> = []
  const meet = (value: unknown, parent: Step | undefined, key: string | number, depth: number) => {
    if (typeof value === "string") {
      if (isUnstorable(value)) refuse(parent, parent === undefined ? undefined : key)
    } else if (value !== null && typeof value === "object") {
      pending.push({ value, key, parent, depth })
    }
  }
  meet(input, undefined, "", 0)
  while (pending.length > 0 && issues.length < MAX_ISSUES) {
    const step = pending.pop()!
    const { value } = step
    const depth = step.depth + 1
    if (depth > MAX_DEPTH) {
      issues.push(tooDeep(pathOf(step)))
      continue
    }
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) meet(value[index], step, index, depth)
    } else {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        if (isUnstorable(key)) refuse(step, key)
        else meet((value as Record<string, unknown>)[key], step, key, depth)
      }
    }
  }
  return issues
}

/** `validation_failed` naming what `unsafeInput` finds, or nothing. Shared by REST, MCP and imports. */
export const refuseUnsafe = (input: unknown): Either.Either<void, ValidationFailed> => {
  const issues = unsafeInput(input)
  return issues.length === 0 ? Either.void : Either.left(new ValidationFailed({ detail: issues }))
}
