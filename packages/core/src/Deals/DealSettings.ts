/**
 * The deals' part of the settings document, the pipelines, and what replacing it removes (a stage
 * from its pipeline, or with it) that deals may still stand in.
 */
import { z } from "zod"
import { Pipeline, PipelineInput } from "./PipelineSchemas.js"

// The ids the part's entries carry: the hub mints them where a client left them out.
export { PipelineId, StageId } from "./PipelineIds.js"

export const DealSettingsInput = z.strictObject({
  pipelines: z
    .array(PipelineInput)
    .default([])
    .superRefine((pipelines, ctx) => {
      // Deals refer to pipelines and stages by id: one id must name one thing.
      const seen = new Set<string>()
      for (const id of pipelines.flatMap((p) => [p.id, ...p.stages.map((s) => s.id)])) {
        if (id === undefined) continue
        if (seen.has(id)) ctx.addIssue({ code: "custom", message: `id ${id} is used more than once` })
        seen.add(id)
      }
    })
})

export const DealSettings = z.object({ pipelines: z.array(Pipeline) })
export type DealSettings = z.infer<typeof DealSettings>

declare module "../Organisation.js" {
  interface SettingsParts extends DealSettings {}
}

export interface RemovedStage {
  readonly pipeline_id: string
  readonly pipeline: string
  readonly stage_id: string
  readonly stage: string
}

export const removedStages = (before: DealSettings, after: DealSettings): ReadonlyArray<RemovedStage> => {
  // A stage moved to another pipeline leaves its deals in a pipeline without it: a removal too.
  const kept = new Set(
    after.pipelines.flatMap((pipeline) => pipeline.stages.map((stage) => `${pipeline.id}/${stage.id}`))
  )
  return before.pipelines.flatMap((pipeline) =>
    pipeline.stages
      .filter((stage) => !kept.has(`${pipeline.id}/${stage.id}`))
      .map((stage) => ({ pipeline_id: pipeline.id, pipeline: pipeline.name, stage_id: stage.id, stage: stage.name }))
  )
}
