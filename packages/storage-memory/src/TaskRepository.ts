/** Tasks in memory: rows per organisation, archived ones kept but never read. */
import { Tasks } from "@crm/core"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"

export const make = (store: Store) => {
  const live = LiveRecords.make<Tasks.Task>(store, {
    table: "tasks",
    noun: "task"
  })
  return Tasks.TaskRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    archive: live.archive,
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (task) =>
          (filter.done === undefined || task.done === filter.done) &&
          (filter.priority === undefined || task.priority === filter.priority) &&
          (filter.assigneeId === undefined || task.assignee_id === filter.assigneeId) &&
          (filter.entityId === undefined || task.entity_id === filter.entityId)
      )
  })
}
