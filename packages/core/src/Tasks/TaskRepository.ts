import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { TaskPriority } from "../Settings/SettingsSchemas.js"
import type { Page } from "../Wire.js"
import type { Task } from "./TaskSchemas.js"

export interface TaskFilter {
  readonly done?: boolean
  readonly priority?: TaskPriority
  readonly assigneeId?: string
  readonly entityId?: string
}

/** Live (not archived) tasks of one organisation. */
export class TaskRepository extends Context.Tag("@crm/core/TaskRepository")<
  TaskRepository,
  {
    readonly insert: (organisationId: string, task: Task) => Effect.Effect<void, StorageError>
    readonly get: (organisationId: string, id: string) => Effect.Effect<Option.Option<Task>, StorageError>
    /** Like `get`, and no other unit of work changes the task until the calling one ends. */
    readonly getForUpdate: (organisationId: string, id: string) => Effect.Effect<Option.Option<Task>, StorageError>
    readonly update: (organisationId: string, task: Task) => Effect.Effect<void, StorageError>
    readonly archive: (organisationId: string, id: string, at: string) => Effect.Effect<boolean, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: string,
      filter: TaskFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Task>, StorageError>
  }
>() {}
