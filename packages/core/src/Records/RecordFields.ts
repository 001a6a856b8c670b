/**
 * A record's `custom` values against its type, as pure rules: keys the type does not define are
 * dropped and reported, each value is checked against its field, computed fields (formula,
 * rollup) are never set but always derived. Existence of the records a relation names needs I/O:
 * the references are handed back for the service to check.
 */
import * as Either from "effect/Either"
import { ValidationFailed, type ValidationIssue } from "../Errors.js"
import { isCalendarDate } from "../internal/dates.js"
import { isEmptyValue } from "../internal/emptyValue.js"
import * as Formula from "./Formula.js"
import type { Aggregate, RecordField, RecordType } from "./RecordTypes.js"

export type Values = Readonly<Record<string, unknown>>

/** The ids one relation field names, to be checked against `target`. */
export interface Reference {
  /** As named in errors: `custom.<key>`. */
  readonly field: string
  readonly target: string
  readonly ids: ReadonlyArray<string>
}

export interface Normalised {
  /** What is stored: set values only. */
  readonly custom: Values
  /** Keys the type does not define, in the order sent. */
  readonly ignored: ReadonlyArray<string>
  readonly references: ReadonlyArray<Reference>
}

const MAX_TEXT = 10_000
const MAX_LINKS = 100

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

type Computed = Extract<RecordField, { readonly type: "formula" | "rollup" }>

/** Formula and rollup values are computed when read, never stored. */
export const isComputed = (field: RecordField): field is Computed => field.type === "formula" || field.type === "rollup"

/** The stored form of a valid value, or why the value does not fit the field. */
const check = (field: Exclude<RecordField, Computed>, value: unknown): Either.Either<unknown, string> => {
  switch (field.type) {
    case "text":
      return typeof value === "string" && value.length <= MAX_TEXT
        ? Either.right(value)
        : Either.left(`must be a string of at most ${MAX_TEXT} characters`)
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? Either.right(value) : Either.left("must be a number")
    case "date":
      return typeof value === "string" && isCalendarDate(value)
        ? Either.right(value)
        : Either.left("must be a date YYYY-MM-DD")
    case "boolean":
      return typeof value === "boolean" ? Either.right(value) : Either.left("must be true or false")
    case "select":
      return typeof value === "string" && field.options.includes(value)
        ? Either.right(value)
        : Either.left(`must be one of: ${field.options.join(", ")}`)
    case "multiselect":
      return Array.isArray(value) && value.every((item) => typeof item === "string" && field.options.includes(item))
        ? Either.right([...new Set(value)])
        : Either.left(`must be a list of options from: ${field.options.join(", ")}`)
    case "relation":
      return Array.isArray(value) &&
        value.length <= MAX_LINKS &&
        value.every((item) => typeof item === "string" && UUID.test(item))
        ? Either.right([...new Set(value.map((id: string) => id.toLowerCase()))])
        : Either.left(`must be a list of at most ${MAX_LINKS} ids`)
  }
}

/**
 * `current` is the stored `custom` of the record being changed (absent on create). A key sent
 * replaces its value and `null` clears it; keys not sent keep theirs. A required field must have
 * a value on create and cannot be cleared later, nor set to an empty one.
 */
export const normalise = (
  type: RecordType,
  input: Values,
  current?: Values
): Either.Either<Normalised, ValidationFailed> => {
  const byKey = new Map(type.fields.map((field) => [field.key, field]))
  const issues: Array<ValidationIssue> = []
  const ignored: Array<string> = []
  const references: Array<Reference> = []
  const custom: Record<string, unknown> = { ...current }
  for (const [key, value] of Object.entries(input)) {
    const field = byKey.get(key)
    const path = `custom.${key}`
    if (field === undefined) {
      ignored.push(key)
      continue
    }
    if (isComputed(field)) {
      issues.push({ path, message: `${field.type} fields are computed and cannot be set`, code: "read_only" })
      continue
    }
    if (value === null) {
      delete custom[key]
      if ("required" in field && field.required) issues.push({ path, message: "is required", code: "required" })
      continue
    }
    const checked = check(field, value)
    if (Either.isLeft(checked)) {
      issues.push({ path, message: checked.left, code: "invalid_value" })
      continue
    }
    if (field.required && isEmptyValue(checked.right)) {
      issues.push({ path, message: "is required: an empty value does not count", code: "required" })
      continue
    }
    custom[key] = checked.right
    if (field.type === "relation")
      references.push({ field: path, target: field.target, ids: checked.right as Array<string> })
  }
  if (current === undefined) {
    const reported = new Set(issues.map((issue) => issue.path))
    for (const field of type.fields) {
      const path = `custom.${field.key}`
      if ("required" in field && field.required && !Object.hasOwn(custom, field.key) && !reported.has(path))
        issues.push({ path, message: "is required", code: "required" })
    }
  }
  return issues.length > 0
    ? Either.left(new ValidationFailed({ detail: issues }))
    : Either.right({ custom, ignored, references })
}

/** Sum, count, min, max or average; an empty set sums and counts to 0 and has no min, max or average. */
export const aggregate = (kind: Aggregate, values: ReadonlyArray<number>): number | null => {
  if (kind === "count") return values.length
  if (kind === "sum") return Number(values.reduce((total, value) => total + value, 0).toPrecision(15))
  if (values.length === 0) return null
  if (kind === "min") return Math.min(...values)
  if (kind === "max") return Math.max(...values)
  return Number((values.reduce((total, value) => total + value, 0) / values.length).toPrecision(15))
}

/** The relation fields whose linked records some rollup reads. */
export const rollupRelations = (type: RecordType): ReadonlyArray<string> => [
  ...new Set(type.fields.flatMap((field) => (field.type === "rollup" ? [field.rollup.relation] : [])))
]

/** The ids a relation field of `custom` holds (none when unset). */
export const linkedIds = (custom: Values, relation: string): ReadonlyArray<string> => {
  const value = Object.hasOwn(custom, relation) ? custom[relation] : undefined
  // A value stored before the field became a relation (say, a multiselect's options) links nothing.
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string" && UUID.test(id)) : []
}

/**
 * The stored values plus every computed field. `linked` gives the stored `custom` of the records a
 * relation field links to (those that still exist). A rollup with a field aggregates the numbers
 * found there; `count` without a field counts the linked records.
 */
export const withComputed = (
  type: RecordType,
  stored: Values,
  linked: (relation: string) => ReadonlyArray<Values>
): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...stored }
  for (const field of type.fields) {
    if (field.type === "formula") {
      // The settings schema admits only formulas that parse.
      const parsed = Formula.parse(field.expression)
      out[field.key] = Either.isRight(parsed) ? Formula.evaluate(parsed.right, (key) => stored[key]) : null
    } else if (field.type === "rollup") {
      const { relation, field: source, aggregate: kind } = field.rollup
      const rows = linked(relation)
      const values =
        source === undefined
          ? rows.map(() => 0)
          : rows.flatMap((row) => {
              const value = row[source]
              return typeof value === "number" && Number.isFinite(value) ? [value] : []
            })
      out[field.key] = aggregate(kind, values)
    }
  }
  return out
}
