import { Tasks } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { route, write } from "../Route.js"
import { resourceRoutes } from "./resource.js"

export const taskRoutes = [
  ...resourceRoutes({
    service: Tasks.Tasks,
    plural: "tasks",
    singular: "task",
    pascal: "Task",
    schemas: {
      id: Tasks.TaskId,

      create: Tasks.TaskCreate,
      patch: Tasks.TaskPatch,
      record: Tasks.Task,
      page: Tasks.TaskPage,
      query: Tasks.TaskListQuery
    },
    createErrors: ["validation_failed"],
    updateErrors: [],
    notes: {
      create: "Create a task, attached to a live contact, company or deal by entity_type and entity_id together",
      update:
        "Change a task: omitted fields keep their value, null clears a field; done: true completes it (emitting task.completed once), done: false reopens it"
    }
  }),
  route({
    method: "POST",
    path: "/tasks/{id}/complete",
    params: { id: Tasks.TaskId },
    operationId: "completeTask",
    tag: "tasks",
    guard: write,
    summary:
      "Complete a task: stamps completed_at and emits task.completed; on a done task answers 200 with the original completion time and emits nothing",
    success: { status: 200, schema: Tasks.Task, description: "the task" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(Tasks.Tasks, (tasks) => tasks.complete(principal.organisation, params.id)).pipe(Effect.map(ok))
  })
]

export const tasksArea: Area = {
  api: taskRoutes,
  schemaNames: named(Tasks, "Task", "TaskCreate", "TaskPatch", "TaskPage", "EntityType", "TaskPriority")
}
