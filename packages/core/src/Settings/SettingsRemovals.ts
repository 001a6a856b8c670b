/**
 * What a settings replacement removes that records may still use, as pure rules: a stage (from
 * its pipeline, or with it) and a stored field of a record type (gone with its type, gone from
 * it, or turned into a computed one, which would hide the stored values). The service counts the
 * uses; `check` refuses the replacement while any remains, naming each and how many use it. A
 * record type whose records hold no values any more may go: they stay readable.
 */
import * as Either from "effect/Either"
import { type RemovedStage, removedStages } from "../Deals/DealSettings.js"
import { InUse } from "../Errors.js"
import { type RemovedField, removedFields } from "../Records/RecordSettings.js"
import type { Settings } from "./SettingsSchemas.js"

export type { RemovedField, RemovedStage }

export interface Removals {
  readonly stages: ReadonlyArray<RemovedStage>
  readonly fields: ReadonlyArray<RemovedField>
}

/** How many live deals stand in a stage, by stage id; stages nobody stands in may be left out. */
export interface DealsByStage {
  readonly status_id: string
  readonly deals: number
}

/** How many live records of a type hold a value for a key of their stored `custom`; unused keys may be left out. */
export interface FieldUse {
  readonly type_id: string
  readonly field: string
  readonly records: number
}

export const between = (before: Settings, after: Settings): Removals => ({
  stages: removedStages(before, after),
  fields: removedFields(before, after)
})

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

/** Refuses when anything removed is still used; each use is named with its count. */
export const check = (
  removals: Removals,
  deals: ReadonlyArray<DealsByStage>,
  values: ReadonlyArray<FieldUse>
): Either.Either<void, InUse> => {
  const dealsIn = new Map(deals.map((row) => [row.status_id, row.deals]))
  const holding = new Map(values.map((row) => [`${row.type_id}/${row.field}`, row.records]))
  const stages = removals.stages.flatMap((stage) => {
    const n = dealsIn.get(stage.stage_id) ?? 0
    return n > 0 ? [{ ...stage, deals: n }] : []
  })
  const fields = removals.fields.flatMap((field) => {
    const n = holding.get(`${field.type_id}/${field.field}`) ?? 0
    return n > 0 ? [{ ...field, records: n }] : []
  })
  if (stages.length + fields.length === 0) return Either.void
  const uses = [
    ...stages.map((s) => `stage '${s.stage}' of pipeline '${s.pipeline}' (${plural(s.deals, "deal")} in it)`),
    ...fields.map((f) => `record field ${f.type_key}.${f.field} (${plural(f.records, "record")} with a value)`)
  ]
  return Either.left(
    new InUse({
      detail: {
        message: `the settings remove what is still in use: ${uses.join(", ")}; move those deals to another stage and clear those values first`,
        stages,
        record_fields: fields
      }
    })
  )
}
