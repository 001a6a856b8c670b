import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a pipeline of the organisation's settings: branded, so that no other kind of id (or plain string) is taken for one. */
export const PipelineId = IdInput.brand<"PipelineId">()
export type PipelineId = z.output<typeof PipelineId>

/** The id of a pipeline's stage: branded, so that no other kind of id (or plain string) is taken for one. */
export const StageId = IdInput.brand<"StageId">()
export type StageId = z.output<typeof StageId>
