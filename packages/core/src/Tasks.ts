/** Tasks: to-dos attached to a contact, company or deal, completed once. */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import * as BusinessTime from "./BusinessClock/BusinessTime.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { Cursors } from "./Cursors.js"
import { DealRepository } from "./Deals/DealRepository.js"
import type { NotFound, StorageError, ValidationFailed } from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog, type NewEvent } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { addDays, dateIn, startOfDay } from "./internal/dates.js"
import { operation } from "./internal/operation.js"
import { archiveLive, merge, nowIso, orNotFound, partyByKind, requireLink } from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import type { ResourceService } from "./Resource.js"
import { TaskId } from "./Tasks/TaskIds.js"
import { type TaskFilter, TaskRepository } from "./Tasks/TaskRepository.js"
import type { EntityType, Task, TaskCreate, TaskListQuery, TaskPatch } from "./Tasks/TaskSchemas.js"
import * as TaskState from "./Tasks/TaskState.js"
import { Transaction } from "./Transaction.js"
import { type Page, type PageResult, toPage, toUtc } from "./Wire.js"

export * from "./Tasks/TaskRepository.js"
export * from "./Tasks/TaskSchemas.js"
export * as TaskState from "./Tasks/TaskState.js"

export class Tasks extends Context.Tag("@crm/core/Tasks")<
  Tasks,
  ResourceService<
    z.output<typeof TaskCreate>,
    z.output<typeof TaskPatch>,
    TaskListQuery,
    Task,
    ValidationFailed,
    ValidationFailed
  > & {
    /** open → done, emitting `task.completed`; on a done task the same task, unchanged, and no event. */
    readonly complete: (organisation: Organisation, id: TaskId) => Effect.Effect<Task, NotFound | StorageError>
    /** A page of tasks by the repository's filter and order (what the assistant tools ask for). */
    readonly listBy: (
      organisation: Organisation,
      filter: TaskQuery,
      page: Page
    ) => Effect.Effect<PageResult<Task>, StorageError>
  }
>() {}

/** The repository's filter, with the due window said in the organisation's own calendar. */
export type TaskQuery = Omit<TaskFilter, "dueFrom" | "dueBefore"> & {
  /** `overdue`: due before now; `today`: due during today in the organisation's time zone. */
  readonly due?: "overdue" | "today"
}

/** The instants bounding a due window: "today" begins and ends at the zone's midnights, DST included. */
const dueWindow = (due: "overdue" | "today", timeZone: string, now: number) => {
  if (due === "overdue") return { dueBefore: new Date(now).toISOString() }
  const today = dateIn(timeZone, now)
  return {
    dueFrom: new Date(startOfDay(timeZone, today)).toISOString(),
    dueBefore: new Date(startOfDay(timeZone, addDays(today, 1))).toISOString()
  }
}

const CREATED_FIELDS = ["id", "title", "type", "priority", "due_at", "entity_type", "entity_id"] as const
const COMPLETED_FIELDS = ["id", "title", "entity_type", "entity_id"] as const

const completedEvent = (task: Task): NewEvent => ({ event: "task.completed", data: pick(task, COMPLETED_FIELDS) })

const utcOrNull = (value: string | null | undefined) => (value == null ? value : toUtc(value))

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* TaskRepository
  const cursors = yield* Cursors
  const contacts = yield* ContactRepository
  const companies = yield* CompanyRepository
  const deals = yield* DealRepository
  const party = partyByKind(contacts, companies, deals)
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: TaskId) => repo.get(organisationId, id).pipe(orNotFound("task"))
  const lock = (organisationId: OrganisationId, id: TaskId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("task"))

  // The entity a task attaches to must be a live record of the organisation (422 naming entity_id).
  const requireEntity = (
    organisationId: OrganisationId,
    type: EntityType | null | undefined,
    id: string | null | undefined
  ) => requireLink("entity_id", id, (entityId) => party(organisationId, type ?? "deal", entityId))

  const save = (organisationId: OrganisationId, outcome: TaskState.Outcome) =>
    Effect.gen(function* () {
      yield* repo.update(organisationId, outcome.task)
      if (outcome.completed)
        yield* events.append(organisationId, [completedEvent(outcome.task)], outcome.task.updated_at)
      return outcome.task
    })

  return Tasks.of({
    create: operation("Tasks.create")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          yield* requireEntity(organisation.id, input.entity_type, input.entity_id)
          const now = yield* nowIso
          const task: Task = {
            id: brand(TaskId, ids.next()),
            title: input.title,
            type: input.type ?? "todo",
            priority: input.priority ?? "normal",
            due_at: utcOrNull(input.due_at) ?? null,
            done: false,
            completed_at: null,
            assignee_id: input.assignee_id ?? null,
            entity_type: input.entity_type ?? null,
            entity_id: input.entity_id ?? null,
            description: input.description ?? null,
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, task)
          yield* events.append(organisation.id, [{ event: "task.created", data: pick(task, CREATED_FIELDS) }], now)
          return task
        })
      )
    }),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Tasks.update")(function* (organisation, id, patch) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          yield* requireEntity(organisation.id, patch.entity_type, patch.entity_id)
          const now = yield* nowIso
          const { done, ...fields } = patch
          const changed = { ...merge(current, { ...fields, due_at: utcOrNull(fields.due_at) }), updated_at: now }
          return yield* save(organisation.id, TaskState.setDone(changed, done, now))
        })
      )
    }),
    complete: operation("Tasks.complete")(function* (organisation, id) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          if (current.done) return current
          const now = yield* nowIso
          return yield* save(organisation.id, TaskState.complete({ ...current, updated_at: now }, now))
        })
      )
    }),
    listBy: operation("Tasks.listBy")(function* (organisation, { due, ...filter }, page) {
      // By the business clock: a test clock moved past a task's due time makes it overdue.
      const window =
        due === undefined
          ? {}
          : dueWindow(due, organisation.settings.timezone, yield* BusinessTime.millis(organisation))
      return toPage(yield* repo.list(organisation.id, { ...filter, ...window }, page), page)
    }),
    archive: operation("Tasks.archive")((organisation, id) =>
      archiveLive(tx, (at) => repo.archive(organisation.id, id, at), find(organisation.id, id))
    ),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "tasks" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.done !== undefined ? { done: query.done } : {}),
            ...(query.priority !== undefined ? { priority: query.priority } : {}),
            ...(query.assignee_id !== undefined ? { assigneeId: query.assignee_id } : {}),
            ...(query.entity_id !== undefined ? { entityId: query.entity_id } : {})
          },
          page
        )
      )
  })
})

export const layer = Layer.effect(Tasks, make)
