/**
 * Objects, arrays, records, unions and intersections: values built from what their parts derive,
 * refusals from a part's refusal put in place, a key left out or added, a length broken.
 */
import { SchemaWalk } from "@crm/core"
import fc from "fast-check"
import type { z } from "zod"
import {
  absent,
  at,
  type Context,
  type Derive,
  type Derived,
  EXTRA_ITEMS,
  enforce,
  lengthBounds,
  once,
  refusedOf,
  wrongTypes
} from "./Derivation.js"

export const objectOf = (
  schema: z.core.$ZodType,
  walked: SchemaWalk.NodeOf<"object">,
  ctx: Context,
  derive: Derive
): Derived => {
  const fields = walked.fields.map(({ key, schema: field, optional }) => {
    const derived = derive(field, at(ctx, `.${key}`))
    // An optional key is left out rather than sent as `undefined`, as a JSON client would.
    return { key, optional, derived, given: optional ? (derived.inner ?? derived).valid : derived.valid }
  })
  const unmet = fields.find((field) => !field.optional && field.given === undefined)
  const present = fields.filter((field) => field.given !== undefined && field.given !== absent)
  const base =
    unmet === undefined
      ? fc.record(Object.fromEntries(present.map((field) => [field.key, field.given!])), {
          requiredKeys: present.filter((field) => !field.optional).map((field) => field.key)
        })
      : undefined
  const made = base === undefined ? { valid: undefined, unmet: unmet!.derived.unmet } : enforce(schema, base, ctx)
  const strict = walked.catchall !== undefined && SchemaWalk.node(walked.catchall).kind === "never"
  return {
    ...made,
    invalid: once(() => {
      if (base === undefined) return refusedOf(schema, [wrongTypes])
      const required = fields.filter((field) => !field.optional).map((field) => field.key)
      const refusable = fields.flatMap((field) => {
        const refused = field.derived.invalid()
        return refused === undefined ? [] : [{ key: field.key, refused }]
      })
      return refusedOf(schema, [
        wrongTypes,
        base,
        required.length === 0
          ? undefined
          : fc.tuple(base, fc.constantFrom(...required)).map(([value, key]) => without(value, key)),
        refusable.length === 0
          ? undefined
          : fc
              .tuple(base, fc.constantFrom(...refusable))
              .chain(([value, field]) => field.refused.map((bad) => ({ ...(value as object), [field.key]: bad }))),
        strict ? base.map((value) => ({ ...(value as object), "unknown key": 1 })) : undefined
      ])
    })
  }
}

const without = (value: unknown, key: string): Record<string, unknown> => {
  const copy: Record<string, unknown> = { ...(value as object) }
  delete copy[key]
  return copy
}

export const arrayOf = (
  schema: z.core.$ZodType,
  walked: SchemaWalk.NodeOf<"array">,
  ctx: Context,
  derive: Derive
): Derived => {
  const element = derive(walked.element, at(ctx, "[]"))
  const { min, max } = lengthBounds(walked.checks)
  const maxLength = Math.min(max ?? Infinity, min + EXTRA_ITEMS)
  const base =
    element.valid === undefined
      ? min === 0
        ? fc.constant([])
        : undefined
      : fc.array(element.valid, { minLength: min, maxLength })
  const made = base === undefined ? { valid: undefined, unmet: element.unmet } : enforce(schema, base, ctx)
  return {
    ...made,
    invalid: once(() => {
      const item = element.valid
      const bad = element.invalid()
      return refusedOf(schema, [
        wrongTypes,
        base,
        bad === undefined || base === undefined
          ? undefined
          : fc.tuple(base, bad).map(([items, one]) => [...(items as Array<unknown>), one]),
        item === undefined || max === undefined ? undefined : item.map((one) => Array(max + 1).fill(one)),
        item === undefined || min === 0 ? undefined : item.map((one) => Array(min - 1).fill(one))
      ])
    })
  }
}

/** The keys zod requires of a record whose key schema is an enum or a literal; undefined for any other. */
const requiredKeysOf = (key: SchemaWalk.Schema): Array<string> | undefined => {
  const walked = SchemaWalk.node(key)
  return walked.kind === "enum" || walked.kind === "literal" ? walked.values.map(String) : undefined
}

export const recordOf = (
  schema: z.core.$ZodType,
  walked: SchemaWalk.NodeOf<"record">,
  ctx: Context,
  derive: Derive
): Derived => {
  const { key: keyType, value: valueType, partial } = walked
  const value = derive(valueType, at(ctx, "[value]"))
  // zod requires every key of an enum or literal key schema, unless the record is partial.
  const keys = requiredKeysOf(keyType)
  const key = keys === undefined ? derive(keyType, at(ctx, "[key]")) : undefined
  const someKey = keys === undefined ? key!.valid : fc.constantFrom(...keys)
  const base =
    value.valid === undefined || someKey === undefined
      ? keys === undefined || partial
        ? fc.constant({})
        : undefined
      : keys === undefined
        ? fc.dictionary(someKey as fc.Arbitrary<string>, value.valid, { maxKeys: EXTRA_ITEMS })
        : fc.record(Object.fromEntries(keys.map((k) => [k, value.valid!])), { requiredKeys: partial ? [] : keys })
  const made = base === undefined ? { valid: undefined, unmet: value.unmet } : enforce(schema, base, ctx)
  return {
    ...made,
    invalid: once(() => {
      const badValue = value.invalid()
      // An object key is a string: only strings the key schema refuses make a bad key.
      const badKey =
        key === undefined
          ? undefined
          : refusedOf(keyType, [
              fc.string(),
              key.valid?.map((k) => ` ${String(k)}!`),
              fc.constantFrom("", "not valid", "UPPER")
            ])
      return refusedOf(schema, [
        wrongTypes,
        base,
        badValue === undefined || base === undefined || someKey === undefined
          ? undefined
          : fc.tuple(base, someKey, badValue).map(([record, k, bad]) => ({ ...(record as object), [String(k)]: bad })),
        badKey === undefined || value.valid === undefined
          ? undefined
          : fc.tuple(badKey, value.valid).map(([k, one]) => ({ [String(k)]: one }))
      ])
    })
  }
}

export const unionOf = (
  schema: z.core.$ZodType,
  walked: SchemaWalk.NodeOf<"union">,
  ctx: Context,
  derive: Derive
): Derived => {
  const options = walked.options.map((option, i) => derive(option, at(ctx, `|${i}`)))
  const possible = options.flatMap((option) => (option.valid === undefined ? [] : [option.valid]))
  const made =
    possible.length === 0
      ? { valid: undefined, unmet: options.map((option) => option.unmet).join("; ") }
      : enforce(schema, fc.oneof(...possible), ctx)
  return {
    ...made,
    invalid: once(() => refusedOf(schema, [wrongTypes, ...options.map((option) => option.invalid())]))
  }
}

/**
 * An intersection of objects (a record and the fields a list adds to its rows, `archived_at`):
 * a value of each side, merged; refused are the values either side refuses.
 */
export const intersectionOf = (
  schema: z.core.$ZodType,
  walked: SchemaWalk.NodeOf<"intersection">,
  ctx: Context,
  derive: Derive
): Derived => {
  const left = derive(walked.left, at(ctx, "&0"))
  const right = derive(walked.right, at(ctx, "&1"))
  const made =
    left.valid === undefined || right.valid === undefined
      ? { valid: undefined, unmet: [left.unmet, right.unmet].filter((reason) => reason !== "").join("; ") }
      : enforce(
          schema,
          fc.tuple(left.valid, right.valid).map(([a, b]) => ({ ...(a as object), ...(b as object) })),
          ctx
        )
  return { ...made, invalid: once(() => refusedOf(schema, [wrongTypes, left.invalid(), right.invalid()])) }
}
