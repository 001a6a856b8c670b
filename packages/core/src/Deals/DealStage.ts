/**
 * The deal stage machine as pure rules: where a new deal lands, which moves are allowed, what a
 * move changes. Facts that need I/O (the settings, the current deal) are passed in.
 */
import * as Either from "effect/Either"
import { ValidationFailed, type ValidationIssue } from "../Errors.js"
import type { Deal } from "./DealSchemas.js"
// The rules read the deals' part of the settings only.
import type { DealSettings as Settings } from "./DealSettings.js"
import type { Pipeline, Stage } from "./PipelineSchemas.js"

export interface Placement {
  readonly pipeline: Pipeline
  readonly stage: Stage
}

const refuse = (path: string, message: string, code = "invalid_stage") =>
  new ValidationFailed({ detail: [{ path, message, code }] })

/** "First open stage" skips won and lost stages placed first (decisions page). */
export const firstOpenStage = (pipeline: Pipeline): Stage | undefined =>
  pipeline.stages.find((stage) => stage.kind === "open")

/** Without `pipeline_id` the first pipeline; without `status_id` that pipeline's first open stage. */
export const place = (
  settings: Settings,
  request: { readonly pipeline_id?: string | undefined; readonly status_id?: string | undefined }
): Either.Either<Placement, ValidationFailed> => {
  const pipeline =
    request.pipeline_id === undefined
      ? settings.pipelines[0]
      : settings.pipelines.find((candidate) => candidate.id === request.pipeline_id)
  if (pipeline === undefined) {
    return Either.left(refuse("pipeline_id", "no such pipeline in this organisation", "unknown_reference"))
  }
  const stage =
    request.status_id === undefined
      ? firstOpenStage(pipeline)
      : pipeline.stages.find((candidate) => candidate.id === request.status_id)
  if (stage === undefined) {
    return Either.left(
      request.status_id === undefined
        ? refuse("pipeline_id", `pipeline '${pipeline.name}' has no open stage`)
        : refuse("status_id", `not a stage of pipeline '${pipeline.name}' (${pipeline.id})`)
    )
  }
  return Either.right({ pipeline, stage })
}

const isMissing = (value: unknown): boolean => value === null || value === undefined || value === ""

/** Every field the stage requires that the deal lacks, by the names settings use. */
export const missingFields = (stage: Stage, deal: Deal): ReadonlyArray<string> =>
  stage.required_fields.filter((field) =>
    field.startsWith("custom.")
      ? isMissing(deal.custom[field.slice("custom.".length)])
      : isMissing(deal[field as keyof Deal])
  )

/** A deal may enter a stage only with every field the stage requires; the refusal names each one. */
export const checkRequired = (stage: Stage, deal: Deal): Either.Either<void, ValidationFailed> => {
  const missing = missingFields(stage, deal)
  if (missing.length === 0) return Either.void
  const detail: Array<ValidationIssue> = missing.map((path) => ({
    path,
    message: `required by stage '${stage.name}'`,
    code: "required_by_stage"
  }))
  return Either.left(new ValidationFailed({ detail }))
}

/** The deal as it is once it stands in `stage`: kind, and `closed_at` stamped on won/lost, cleared on open. */
export const enter = (deal: Deal, stage: Stage, at: string): Deal => ({
  ...deal,
  status_id: stage.id,
  status_kind: stage.kind,
  closed_at: stage.kind === "open" ? null : at
})

export type Move =
  | { readonly _tag: "Unchanged" }
  | { readonly _tag: "Moved"; readonly deal: Deal; readonly from: Stage | undefined; readonly to: Stage }

/**
 * `POST /deals/{id}/status`: only to a stage of the deal's own pipeline, only with the target's
 * required fields; moving to the stage the deal is in changes nothing.
 */
export const move = (
  settings: Settings,
  deal: Deal,
  request: { readonly status_id: string; readonly lost_reason?: string | null | undefined },
  at: string
): Either.Either<Move, ValidationFailed> => {
  const pipeline = settings.pipelines.find((candidate) => candidate.id === deal.pipeline_id)
  const to = pipeline?.stages.find((stage) => stage.id === request.status_id)
  if (pipeline === undefined || to === undefined) {
    return Either.left(refuse("status_id", `not a stage of the deal's pipeline (${deal.pipeline_id})`))
  }
  if (to.id === deal.status_id) return Either.right({ _tag: "Unchanged" })
  const moved = enter(request.lost_reason === undefined ? deal : { ...deal, lost_reason: request.lost_reason }, to, at)
  return Either.map(checkRequired(to, moved), () => ({
    _tag: "Moved" as const,
    deal: { ...moved, updated_at: at },
    from: pipeline.stages.find((stage) => stage.id === deal.status_id),
    to
  }))
}
