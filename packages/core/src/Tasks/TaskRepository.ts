import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { UserId } from "../Organisation/UserIds.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { Page } from "../Wire.js"
import type { Task, TaskPriority } from "./TaskSchemas.js"

export interface TaskFilter {
  readonly done?: boolean
  readonly priority?: TaskPriority
  readonly assigneeId?: UserId
  readonly entityId?: string
  readonly entityType?: "contact" | "company" | "deal"
  /** Only tasks due at or after this instant (ISO UTC); tasks without a due date never match. */
  readonly dueFrom?: string
  /** Only tasks due before this instant (ISO UTC); tasks without a due date never match. */
  readonly dueBefore?: string
  /** `created` (the default): newest `created_at` first; `due`: soonest `due_at` first, no due date last. Ties by id. */
  readonly order?: "created" | "due"
}

/** Live (not archived) tasks of one organisation. */
export class TaskRepository extends Context.Tag("@crm/core/TaskRepository")<
  TaskRepository,
  Pick<RecordStore<Task, TaskFilter>, "insert" | "get" | "getForUpdate" | "update" | "archive"> & {
    /** Newest first (or as `filter.order` says), ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: TaskFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Task>, StorageError>
    /** Analytics: how many live open tasks are due before `now` (ISO UTC). */
    readonly overdueCount: (organisationId: OrganisationId, now: string) => Effect.Effect<number, StorageError>
  }
>() {}
