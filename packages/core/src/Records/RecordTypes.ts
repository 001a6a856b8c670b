/**
 * Record types as the organisation settings define them: a key, a name and typed fields. The
 * input schema checks each type on its own and every cross-reference between fields and types
 * (formula operands, relation targets, rollup sources), so a stored type is always usable.
 */
import * as Either from "effect/Either"
import { z } from "zod"
import * as Formula from "./Formula.js"
import { RecordTypeId } from "./RecordIds.js"

export const FieldKey = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, "lower-case letters, digits and _, starting with a letter")

/** The built-in records a relation field may point at; any other target is a record type key. */
export const BUILT_IN_TARGETS = ["contact", "company", "deal"] as const
export type BuiltInTarget = (typeof BUILT_IN_TARGETS)[number]
export const isBuiltInTarget = (target: string): target is BuiltInTarget =>
  (BUILT_IN_TARGETS as ReadonlyArray<string>).includes(target)

export const Aggregate = z.enum(["sum", "count", "min", "max", "avg"])
export type Aggregate = z.infer<typeof Aggregate>

const distinct = (values: ReadonlyArray<string>) => new Set(values).size === values.length

export const Options = z.array(z.string().min(1).max(200)).min(1).max(500).refine(distinct, "options must be distinct")

const base = { key: FieldKey, name: z.string().min(1).max(200).optional() }
const required = z.boolean().default(false).describe("create refuses a record without a value")

export const RecordFieldInput = z.discriminatedUnion("type", [
  z.strictObject({ ...base, type: z.enum(["text", "number", "date", "boolean"]), required }),
  z.strictObject({ ...base, type: z.enum(["select", "multiselect"]), required, options: Options }),
  z.strictObject({
    ...base,
    type: z.literal("formula"),
    expression: z
      .string()
      .min(1)
      .max(Formula.MAX_LENGTH)
      .superRefine((text, ctx) => {
        const parsed = Formula.parse(text)
        if (Either.isLeft(parsed)) ctx.addIssue({ code: "custom", message: `not a formula: ${parsed.left}` })
      })
      .describe("arithmetic over number fields of the same type: numbers, field keys, + - * / and parentheses")
  }),
  z.strictObject({
    ...base,
    type: z.literal("rollup"),
    rollup: z
      .strictObject({
        relation: FieldKey.describe("a relation field of this type whose target is a record type"),
        field: FieldKey.optional().describe("a number field of the target type; not needed for count"),
        aggregate: Aggregate
      })
      .describe("aggregates a number field over the records the relation field links to")
  }),
  z.strictObject({
    ...base,
    type: z.literal("relation"),
    required,
    target: z.string().min(1).max(63).describe("contact, company, deal or the key of a record type")
  })
])
export type RecordField = z.output<typeof RecordFieldInput>

export const RecordTypeInput = z.strictObject({
  id: RecordTypeId.optional(),
  key: FieldKey,
  name: z.string().min(1).max(200),
  fields: z.array(RecordFieldInput).max(100).default([])
})

export const RecordType = RecordTypeInput.extend({ id: RecordTypeId })
export type RecordType = z.output<typeof RecordType>

type Issue = { readonly path: ReadonlyArray<string | number>; readonly message: string }

/** Every rule that needs more than one field or type in view; each issue names where it is. */
export const crossCheck = (types: ReadonlyArray<z.output<typeof RecordTypeInput>>): ReadonlyArray<Issue> => {
  const issues: Array<Issue> = []
  const byKey = new Map<string, z.output<typeof RecordTypeInput>>()
  const ids = new Set<string>()
  types.forEach((type, t) => {
    if (byKey.has(type.key)) issues.push({ path: [t, "key"], message: `record type key ${type.key} is used twice` })
    byKey.set(type.key, type)
    if (type.id !== undefined) {
      if (ids.has(type.id)) issues.push({ path: [t, "id"], message: `id ${type.id} is used more than once` })
      ids.add(type.id)
    }
  })
  types.forEach((type, t) => {
    const fields = new Map<string, RecordField>()
    type.fields.forEach((field, f) => {
      if (fields.has(field.key))
        issues.push({ path: [t, "fields", f, "key"], message: `field ${field.key} is used twice` })
      fields.set(field.key, field)
    })
    type.fields.forEach((field, f) => {
      const at = (...rest: ReadonlyArray<string>) => [t, "fields", f, ...rest]
      if (field.type === "formula") {
        const parsed = Formula.parse(field.expression)
        if (Either.isLeft(parsed)) return
        for (const key of Formula.references(parsed.right))
          if (fields.get(key)?.type !== "number")
            issues.push({ path: at("expression"), message: `${key} is not a number field of this type` })
      } else if (field.type === "relation") {
        if (!isBuiltInTarget(field.target) && !byKey.has(field.target))
          issues.push({
            path: at("target"),
            message: `${field.target} is neither contact, company, deal nor a record type`
          })
      } else if (field.type === "rollup") {
        const relation = fields.get(field.rollup.relation)
        const target = relation?.type === "relation" ? byKey.get(relation.target) : undefined
        if (target === undefined) {
          issues.push({
            path: at("rollup", "relation"),
            message: `${field.rollup.relation} is not a relation field of this type linking to a record type`
          })
        } else if (field.rollup.field === undefined) {
          if (field.rollup.aggregate !== "count")
            issues.push({ path: at("rollup", "field"), message: `${field.rollup.aggregate} needs a number field` })
        } else if (target.fields.find((candidate) => candidate.key === field.rollup.field)?.type !== "number") {
          issues.push({
            path: at("rollup", "field"),
            message: `${field.rollup.field} is not a number field of ${target.key}`
          })
        }
      }
    })
  })
  return issues
}
