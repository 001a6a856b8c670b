/** Pure: each source's rows as timeline items, and the merge of the sources newest first. */
import type { Call } from "../Calls/CallSchemas.js"
import type { StageVisit } from "../Deals/DealSchemas.js"
import type { DealSettings } from "../Deals/DealSettings.js"
import type { EntitySummary } from "../Notes/NoteEntities.js"
import type { Note } from "../Notes/NoteSchemas.js"
import type { Task } from "../Tasks/TaskSchemas.js"
import type { ActivityItem, Timeline } from "./ActivitySchemas.js"

const NOTE_TITLES = { note: "Note", call: "Call note", meeting: "Meeting note", email: "Email note" } as const
const ENTITY_NAMES = { contact: "Contact", company: "Company", deal: "Deal", record: "Record" } as const

export const createdItem = (entity: EntitySummary): ActivityItem => ({
  at: entity.created_at,
  kind: "created",
  title: `${ENTITY_NAMES[entity.type]} created: ${entity.label}`,
  detail: null,
  ref: { type: entity.type, id: entity.id }
})

export const noteItem = (note: Note): ActivityItem => ({
  at: note.created_at,
  kind: "note",
  title: NOTE_TITLES[note.type],
  detail: note.body,
  ref: { type: "note", id: note.id }
})

const minutes = (seconds: number) => (seconds < 60 ? `${seconds} s` : `${Math.round(seconds / 60)} min`)

export const callItem = (call: Call): ActivityItem => ({
  at: call.started_at,
  kind: "call",
  title: `${call.direction === "inbound" ? "Inbound" : "Outbound"} call, ${call.status.replace("_", " ")}${
    call.status === "completed" ? `, ${minutes(call.duration_seconds)}` : ""
  }`,
  detail: call.summary,
  ref: { type: "call", id: call.id }
})

/** A task gives its creation and, once done, its completion. */
export const taskItems = (task: Task): ReadonlyArray<ActivityItem> => [
  {
    at: task.created_at,
    kind: "task",
    title: `Task created: ${task.title}`,
    detail: task.description,
    ref: { type: "task", id: task.id }
  },
  ...(task.completed_at === null
    ? []
    : [
        {
          at: task.completed_at,
          kind: "task_completed" as const,
          title: `Task completed: ${task.title}`,
          detail: null,
          ref: { type: "task" as const, id: task.id }
        }
      ])
]

export const stageItem = (settings: DealSettings, visit: StageVisit): ActivityItem => {
  const stages = settings.pipelines.flatMap((pipeline) => pipeline.stages)
  const nameOf = (id: string) => stages.find((stage) => stage.id === id)?.name ?? id
  return {
    at: visit.entered_at,
    kind: "stage",
    title: `Entered stage ${nameOf(visit.status_id)}${visit.status_kind === "open" ? "" : ` (${visit.status_kind})`}`,
    detail: visit.from_status_id === null ? null : `from ${nameOf(visit.from_status_id)}`,
    ref: { type: "stage_visit", id: visit.status_id }
  }
}

// Within one instant, the later step of a story comes first (newest first): a completion after
// its task, a stage after the creation.
const RANK: Record<ActivityItem["kind"], number> = {
  created: 0,
  stage: 1,
  task: 2,
  call: 3,
  note: 4,
  task_completed: 5
}

/** Newest first; ties by kind (as above), then by reference id descending. At most `limit` items. */
export const merge = (items: ReadonlyArray<ActivityItem>, limit: number): Timeline => {
  const sorted = [...items].sort((a, b) => {
    if (a.at !== b.at) return a.at < b.at ? 1 : -1
    if (a.kind !== b.kind) return RANK[b.kind] - RANK[a.kind]
    return a.ref.id < b.ref.id ? 1 : a.ref.id > b.ref.id ? -1 : 0
  })
  return { items: sorted.slice(0, limit), has_more: sorted.length > limit }
}
