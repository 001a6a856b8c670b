import { Tasks } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type TaskRow, taskTable, toTask } from "./internal/rows.js"

const tasks = LiveRecords.liveTable({ table: taskTable, toRecord: toTask, repository: "TaskRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Tasks.TaskRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, tasks)

  // A NULL due_at compares as unknown, so a task without a due date never matches a due bound.
  // `done` is written into the text, not sent: a generic plan can then use the partial index of
  // open tasks (`tasks_open_due`), which a parameter could not prove it may.
  const conditions = (filter: Tasks.TaskFilter) => [
    ...(filter.done !== undefined ? [filter.done ? sql`done` : sql`NOT done`] : []),
    ...(filter.priority !== undefined ? [sql`priority = ${filter.priority}`] : []),
    ...(filter.assigneeId !== undefined ? [sql`assignee_id = ${filter.assigneeId}::uuid`] : []),
    ...(filter.entityId !== undefined ? [sql`entity_id = ${filter.entityId}::uuid`] : []),
    ...(filter.entityType !== undefined ? [sql`entity_type = ${filter.entityType}`] : []),
    ...(filter.dueFrom !== undefined ? [sql`due_at >= ${filter.dueFrom}::timestamptz`] : []),
    ...(filter.dueBefore !== undefined ? [sql`due_at < ${filter.dueBefore}::timestamptz`] : [])
  ]

  return Tasks.TaskRepository.of({
    insert: (organisationId, task) => live.insert(organisationId, task),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, task) => live.update(organisationId, task.id, task),
    archive: live.archive,
    list: (organisationId, filter, page) =>
      filter.order === "due"
        ? sql<TaskRow>`SELECT ${live.selected} FROM tasks
            WHERE ${sql.and([live.whereLive(organisationId), ...conditions(filter)])}
            ORDER BY due_at ASC NULLS LAST, id ASC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
            Effect.map((rows) => rows.map(toTask)),
            orStorageError("TaskRepository.list")
          )
        : live.list(organisationId, {}, page, conditions(filter)),
    overdueCount: (organisationId, now) =>
      sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM tasks
        WHERE ${live.whereLive(organisationId)} AND NOT done AND due_at < ${now}::timestamptz`.pipe(
        Effect.map((rows) => Number(rows[0]?.n ?? 0)),
        orStorageError("TaskRepository.overdueCount")
      )
  })
})

export const layer = Layer.effect(Tasks.TaskRepository, make)
