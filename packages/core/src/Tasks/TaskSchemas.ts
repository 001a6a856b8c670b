import { z } from "zod"
import { UserId } from "../Organisation/UserIds.js"
import { ArchivedQuery, IdInput, PageQuery, SyncQuery, syncPageEnvelope, Timestamp, TimestampInput } from "../Wire.js"
import { TaskId } from "./TaskIds.js"

export * from "./TaskIds.js"

export const TaskPriority = z.enum(["low", "normal", "high", "urgent"])
export type TaskPriority = z.infer<typeof TaskPriority>

export const EntityType = z.enum(["contact", "company", "deal"])
export type EntityType = z.infer<typeof EntityType>

const fields = {
  title: z.string().min(1).max(500),
  type: z.string().min(1).max(50).optional().describe("free text such as todo, call, email; default todo"),
  priority: TaskPriority.optional().describe("default normal"),
  due_at: TimestampInput.nullable().optional(),
  assignee_id: UserId.nullable().optional().describe("the user the task is assigned to"),
  entity_type: EntityType.nullable().optional().describe("sent together with entity_id"),
  entity_id: IdInput.nullable().optional().describe("a live contact, company or deal of the organisation"),
  description: z.string().max(10_000).nullable().optional()
}

/** A task attaches to a record by both fields or by neither (also when clearing with null). */
const bothOrNeither = (body: { entity_type?: unknown; entity_id?: unknown }) =>
  (body.entity_type === undefined) === (body.entity_id === undefined) &&
  (body.entity_type === null) === (body.entity_id === null)

const pairMessage = { message: "entity_type and entity_id come together or not at all", path: ["entity_id"] }

export const TaskCreate = z.strictObject(fields).refine(bothOrNeither, pairMessage)

export const TaskPatch = z
  .strictObject({
    ...fields,
    title: fields.title.optional(),
    done: z.boolean().optional().describe("true completes the task (as POST /tasks/{id}/complete); false reopens it")
  })
  .refine(bothOrNeither, pairMessage)

export const Task = z.object({
  id: TaskId,
  title: z.string(),
  type: z.string(),
  priority: TaskPriority,
  due_at: Timestamp.nullable(),
  done: z.boolean(),
  completed_at: Timestamp.nullable().describe("when the task was first completed; null while open"),
  assignee_id: UserId.nullable(),
  entity_type: EntityType.nullable(),
  entity_id: z.uuid().nullable(),
  description: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Task = z.infer<typeof Task>
export const TaskPage = syncPageEnvelope(Task, { archivable: true })

export const TaskListQuery = z.object({
  done: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional(),
  priority: TaskPriority.optional(),
  assignee_id: UserId.optional(),
  entity_id: IdInput.optional(),
  ...SyncQuery,
  ...ArchivedQuery,
  ...PageQuery
})
export type TaskListQuery = z.output<typeof TaskListQuery>
