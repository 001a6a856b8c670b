/**
 * The activity timeline of a contact, company, deal or custom record: its notes, calls, tasks,
 * deal stages and its own creation, newest first. Read only, from the existing repositories.
 */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ActivityItem, Timeline, TimelineQuery } from "./Activity/ActivitySchemas.js"
import * as Items from "./Activity/TimelineItems.js"
import { CallRepository } from "./Calls/CallRepository.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import { ContactId } from "./Contacts/ContactIds.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { DealId } from "./Deals/DealIds.js"
import { DealRepository } from "./Deals/DealRepository.js"
import { NotFound, type StorageError } from "./Errors.js"
import { brand } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { findEntity } from "./Notes/NoteEntities.js"
import { NoteRepository } from "./Notes/NoteRepository.js"
import type { Organisation } from "./Organisation.js"
import { RecordRepository } from "./Records/RecordRepository.js"
import { TaskRepository } from "./Tasks/TaskRepository.js"

export * from "./Activity/ActivitySchemas.js"
export * as TimelineItems from "./Activity/TimelineItems.js"

export class Activity extends Context.Tag("@crm/core/Activity")<
  Activity,
  {
    /** Newest first; `not_found` when the entity is not a live one of the organisation. */
    readonly timeline: (
      organisation: Organisation,
      query: TimelineQuery
    ) => Effect.Effect<Timeline, NotFound | StorageError>
  }
>() {}

const none = Effect.succeed<ReadonlyArray<ActivityItem>>([])

export const make = Effect.gen(function* () {
  const notes = yield* NoteRepository
  const tasks = yield* TaskRepository
  const calls = yield* CallRepository
  const repos = {
    contacts: yield* ContactRepository,
    companies: yield* CompanyRepository,
    deals: yield* DealRepository,
    records: yield* RecordRepository
  }

  return Activity.of({
    timeline: operation("Activity.timeline")(function* (organisation, query) {
      const organisationId = organisation.id
      const { entity_type: type, entity_id: id, limit } = query
      const found = yield* findEntity(repos, organisationId, type, id)
      if (Option.isNone(found)) return yield* new NotFound({ detail: `no such ${type}` })
      // Each paged source gives limit + 1 rows: enough for the page and for has_more.
      const page = { limit: limit + 1, offset: 0 }
      const [noteRows, taskItems, callRows, stageItems] = yield* Effect.all([
        notes.list(organisationId, { entityType: type, entityId: id }, page),
        type === "record"
          ? none
          : Effect.map(tasks.list(organisationId, { entityType: type, entityId: id }, page), (rows) =>
              rows.flatMap(Items.taskItems)
            ),
        type === "contact" ? calls.list(organisationId, { contactId: brand(ContactId, id) }, page) : Effect.succeed([]),
        type === "deal"
          ? Effect.map(repos.deals.history(organisationId, brand(DealId, id)), (visits) =>
              visits.map((visit) => Items.stageItem(organisation.settings, visit))
            )
          : none
      ])
      // A call logged by a call note is told by that note.
      const noted = new Set(noteRows.flatMap((note) => (note.call_id === null ? [] : [note.call_id])))
      return Items.merge(
        [
          Items.createdItem(found.value),
          ...noteRows.map(Items.noteItem),
          ...callRows.filter((call) => !noted.has(call.id)).map(Items.callItem),
          ...taskItems,
          ...stageItems
        ],
        limit
      )
    })
  })
})

export const layer = Layer.effect(Activity, make)
