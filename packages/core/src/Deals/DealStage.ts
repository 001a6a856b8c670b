/**
 * The deal stage machine as pure rules: where a new deal lands, which moves are allowed, what a
 * move changes. Facts that need I/O (the settings, the current deal) are passed in.
 */
import * as Either from "effect/Either"
import { ValidationFailed, type ValidationIssue } from "../Errors.js"
import { isEmptyValue } from "../internal/emptyValue.js"
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

const isMissing = (value: unknown): boolean => value === null || value === undefined || isEmptyValue(value)

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

/** The pipeline a deal is in and the stage it stands in, as the settings now describe them. */
export const locate = (
  settings: Settings,
  deal: Pick<Deal, "pipeline_id" | "status_id">
): { readonly pipeline: Pipeline | undefined; readonly stage: Stage | undefined } => {
  const pipeline = settings.pipelines.find((candidate) => candidate.id === deal.pipeline_id)
  return { pipeline, stage: pipeline?.stages.find((candidate) => candidate.id === deal.status_id) }
}

/** Where a move goes: a stage by its id, or by its name (what a person says). Exactly one of the two. */
export interface Target {
  readonly status_id?: string | undefined
  readonly stage_name?: string | undefined
}

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase()

/**
 * The stage of the deal's pipeline a move asks for. A name must be that of exactly one stage
 * (compared trimmed and case-insensitively): a name two stages share could move the deal into
 * the wrong one, so it is refused in favour of the id.
 */
export const target = (
  pipeline: Pipeline | undefined,
  deal: Deal,
  request: Target
): Either.Either<Stage, ValidationFailed> => {
  if ((request.status_id === undefined) === (request.stage_name === undefined)) {
    return Either.left(refuse("status_id", "pass exactly one of status_id or stage_name", "invalid"))
  }
  const stages = pipeline?.stages ?? []
  if (request.status_id !== undefined) {
    const to = stages.find((stage) => stage.id === request.status_id)
    return to === undefined
      ? Either.left(refuse("status_id", `not a stage of the deal's pipeline (${deal.pipeline_id})`))
      : Either.right(to)
  }
  const named = stages.filter((stage) => sameName(stage.name, request.stage_name!))
  if (named.length === 1) return Either.right(named[0]!)
  return Either.left(
    named.length === 0
      ? refuse(
          "stage_name",
          `no stage of the deal's pipeline has this name; its stages: ${stages.map((stage) => stage.name).join(", ")}`,
          "unknown_stage"
        )
      : refuse(
          "stage_name",
          "several stages of the deal's pipeline have this name: pass status_id instead",
          "ambiguous_stage"
        )
  )
}

export type Move =
  | { readonly _tag: "Unchanged" }
  | {
      readonly _tag: "Moved"
      readonly deal: Deal
      readonly pipeline: Pipeline
      readonly from: Stage | undefined
      readonly to: Stage
    }

/**
 * `POST /deals/{id}/status`: only to a stage of the deal's own pipeline, only with the target's
 * required fields; moving to the stage the deal is in changes nothing.
 */
export const move = (
  settings: Settings,
  deal: Deal,
  request: Target & { readonly lost_reason?: string | null | undefined },
  at: string
): Either.Either<Move, ValidationFailed> => {
  const { pipeline, stage: from } = locate(settings, deal)
  return Either.flatMap(target(pipeline, deal, request), (to): Either.Either<Move, ValidationFailed> => {
    if (to.id === deal.status_id) return Either.right({ _tag: "Unchanged" })
    const moved = enter(
      request.lost_reason === undefined ? deal : { ...deal, lost_reason: request.lost_reason },
      to,
      at
    )
    return Either.map(checkRequired(to, moved), () => ({
      _tag: "Moved" as const,
      deal: { ...moved, updated_at: at },
      // A stage found in it means the pipeline is there.
      pipeline: pipeline!,
      from,
      to
    }))
  })
}
