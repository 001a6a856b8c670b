/** The deals' vocabulary: pipelines, their stages, what a stage requires of a deal and the tasks it creates. */
import { z } from "zod"
import { TaskPriority } from "../Tasks/TaskSchemas.js"
import { PipelineId, StageId } from "./PipelineIds.js"

export * from "./PipelineIds.js"

export const StageKind = z.enum(["open", "won", "lost"])
export type StageKind = z.infer<typeof StageKind>

/** The deal fields a stage may require; `custom.<key>` names a custom field. */
export const REQUIRED_DEAL_FIELDS = ["value", "expected_close_date", "contact_id", "company_id"] as const

export const RequiredField = z
  .string()
  .refine(
    (name) => (REQUIRED_DEAL_FIELDS as ReadonlyArray<string>).includes(name) || /^custom\.[^.\s]+$/.test(name),
    `must be one of ${REQUIRED_DEAL_FIELDS.join(", ")} or custom.<key>`
  )

/** A task a stage creates on each deal that enters it (stage-entry automation). */
export const PlaybookTask = z.strictObject({
  title: z.string().min(1).max(500),
  due_in_days: z.number().int().min(0).max(3650).nullable().default(null),
  priority: TaskPriority.default("normal")
})
export type PlaybookTask = z.infer<typeof PlaybookTask>

export const StageInput = z.strictObject({
  id: StageId.optional(),
  name: z.string().min(1).max(200),
  kind: StageKind,
  required_fields: z.array(RequiredField).default([]),
  playbook: z.array(PlaybookTask).max(20).default([]),
  probability: z
    .number()
    .min(0)
    .max(100)
    .optional()
    .describe("percent chance a deal in this open stage is won, for the weighted forecast")
})

export const PipelineInput = z.strictObject({
  id: PipelineId.optional(),
  name: z.string().min(1).max(200),
  // Without an open stage a deal created in the pipeline would have nowhere to land.
  stages: z
    .array(StageInput)
    .min(1)
    .refine((stages) => stages.some((stage) => stage.kind === "open"), "needs at least one open stage")
})

export const Stage = z.object({
  id: StageId,
  name: z.string(),
  kind: StageKind,
  required_fields: z.array(z.string()),
  // Documents stored before playbooks existed have none.
  playbook: z
    .array(z.object({ title: z.string(), due_in_days: z.number().int().nullable(), priority: TaskPriority }))
    .default([]),
  probability: z.number().optional().describe("percent; when absent the forecast uses the stage's position")
})
export type Stage = z.infer<typeof Stage>

export const Pipeline = z.object({ id: PipelineId, name: z.string(), stages: z.array(Stage) })
export type Pipeline = z.infer<typeof Pipeline>
