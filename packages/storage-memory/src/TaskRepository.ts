/** Tasks in memory: rows per organisation, archived ones kept but never read. */
import { Tasks } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as LiveRecords from "./internal/liveRecords.js"
import { instant, type Store } from "./internal/Store.js"

const tasks = LiveRecords.table<Tasks.Task>("tasks")

/** Soonest `due_at` first, tasks without a due date last; equal times by id ascending. */
const soonestDue = (a: Tasks.Task, b: Tasks.Task): number => {
  if (a.due_at !== b.due_at) {
    if (a.due_at === null) return 1
    if (b.due_at === null) return -1
    const byTime = instant(a.due_at) - instant(b.due_at)
    if (byTime !== 0) return byTime
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

const matching = (filter: Tasks.TaskFilter) => {
  const from = filter.dueFrom === undefined ? undefined : instant(filter.dueFrom)
  const before = filter.dueBefore === undefined ? undefined : instant(filter.dueBefore)
  return (task: Tasks.Task): boolean =>
    (filter.done === undefined || task.done === filter.done) &&
    (filter.priority === undefined || task.priority === filter.priority) &&
    (filter.assigneeId === undefined || task.assignee_id === filter.assigneeId) &&
    (filter.entityId === undefined || task.entity_id === filter.entityId) &&
    (filter.entityType === undefined || task.entity_type === filter.entityType) &&
    // A task without a due date is neither due before nor after any instant.
    (from === undefined || (task.due_at !== null && instant(task.due_at) >= from)) &&
    (before === undefined || (task.due_at !== null && instant(task.due_at) < before))
}

export const make = (store: Store): Context.Tag.Service<typeof Tasks.TaskRepository> => {
  const live = LiveRecords.make<Tasks.Task>(store, {
    table: tasks,
    noun: "task"
  })
  return Tasks.TaskRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    archive: live.archive,
    list: (organisationId, filter, page) =>
      filter.order === "due"
        ? Effect.map(live.select(organisationId, matching(filter), soonestDue), (rows) =>
            rows.slice(page.offset, page.offset + page.limit + 1)
          )
        : live.list(organisationId, {}, page, matching(filter)),
    overdueCount: (organisationId, now) =>
      Effect.map(
        live.select(
          organisationId,
          (task) => !task.done && task.due_at !== null && instant(task.due_at) < instant(now),
          () => 0
        ),
        (tasks) => tasks.length
      )
  })
}
