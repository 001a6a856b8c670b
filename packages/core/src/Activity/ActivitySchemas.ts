import { z } from "zod"
import { NoteEntityType } from "../Notes/NoteSchemas.js"
import { IdInput, Timestamp } from "../Wire.js"

/**
 * What a timeline item is:
 * - `created`: the entity itself was created;
 * - `note`: a note on the entity (of type note, call, meeting or email);
 * - `call`: a call with the contact (contacts only; a call logged by a call note shows as that note);
 * - `task`: a task attached to the entity was created; `task_completed`: it was completed;
 * - `stage`: the deal entered a stage (deals only; the first is the stage it was created in).
 */
export const ActivityKind = z.enum(["created", "note", "call", "task", "task_completed", "stage"])
export type ActivityKind = z.infer<typeof ActivityKind>

export const ActivityRef = z.object({
  type: z.enum(["contact", "company", "deal", "record", "note", "call", "task", "stage_visit"]),
  id: z.uuid().describe("the id of the referenced item (for a stage visit: the stage id)")
})

export const ActivityItem = z.object({
  at: Timestamp.describe("when it happened"),
  kind: ActivityKind,
  title: z.string().describe("one line for a person to read"),
  detail: z.string().nullable().describe("the note's body, the call's summary, the task's description, …"),
  ref: ActivityRef.describe("what the item is about, to fetch more")
})
export type ActivityItem = z.infer<typeof ActivityItem>

export const MAX_TIMELINE = 100

export const TimelineQuery = z.object({
  entity_type: NoteEntityType,
  entity_id: IdInput,
  limit: z.number().int().min(1).max(MAX_TIMELINE).default(20)
})
export type TimelineQuery = z.output<typeof TimelineQuery>

export const Timeline = z.object({ items: z.array(ActivityItem), has_more: z.boolean() })
export type Timeline = z.infer<typeof Timeline>
