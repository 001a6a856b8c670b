/**
 * The records' part of the settings document, the record types, and what replacing it removes: a
 * stored field of a type (gone with its type, gone from it, or turned into a computed one, which
 * would hide the stored values) that records may still hold values for.
 */
import { z } from "zod"
import { isComputed } from "./RecordFields.js"
import { crossCheck, RecordType, RecordTypeInput } from "./RecordTypes.js"

// The ids the part's entries carry: the hub mints them where a client left them out.
export { RecordTypeId } from "./RecordIds.js"

export const RecordSettingsInput = z.strictObject({
  record_types: z
    .array(RecordTypeInput)
    .default([])
    .superRefine((types, ctx) => {
      for (const issue of crossCheck(types)) ctx.addIssue({ code: "custom", ...issue, path: [...issue.path] })
    })
})

export const RecordSettings = z.object({ record_types: z.array(RecordType).default([]) })
export type RecordSettings = z.infer<typeof RecordSettings>

declare module "../Organisation.js" {
  interface SettingsParts extends RecordSettings {}
}

export interface RemovedField {
  readonly type_id: string
  readonly type_key: string
  readonly field: string
}

export const removedFields = (before: RecordSettings, after: RecordSettings): ReadonlyArray<RemovedField> =>
  before.record_types.flatMap((type) => {
    const next = after.record_types.find((candidate) => candidate.id === type.id)
    const stored = new Set(next?.fields.filter((field) => !isComputed(field)).map((field) => field.key))
    return type.fields
      .filter((field) => !isComputed(field) && !stored.has(field.key))
      .map((field) => ({ type_id: type.id, type_key: next?.key ?? type.key, field: field.key }))
  })
