/**
 * Notes: what happened with a contact, company, deal or custom record, written by a person or an
 * assistant. A `call` note also logs the call (through `Calls.log`, with its event) in the same unit
 * of work; plain notes emit no event (the catalogue has none). A note stays as written; only its
 * pin moves.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Call } from "./Calls/CallSchemas.js"
import { Calls } from "./Calls.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { DealRepository } from "./Deals/DealRepository.js"
import { invalidField, type NotFound, type StorageError, type ValidationFailed } from "./Errors.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { nowIso, orNotFound } from "./internal/records.js"
import { type EntitySummary, findEntity } from "./Notes/NoteEntities.js"
import { NoteId } from "./Notes/NoteIds.js"
import { NoteRepository } from "./Notes/NoteRepository.js"
import type { Note, NoteCreate, NoteListQuery, NotePatch } from "./Notes/NoteSchemas.js"
import type { Organisation } from "./Organisation.js"
import { RecordRepository } from "./Records/RecordRepository.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import { type PageResult, toPage } from "./Wire.js"

export * from "./Notes/NoteEntities.js"
export * from "./Notes/NoteRepository.js"
export * from "./Notes/NoteSchemas.js"

/** A logged note, and the call it logged when it is a call note. */
export interface LoggedNote {
  readonly note: Note
  readonly call: Call | null
}

export class Notes extends Context.Tag("@crm/core/Notes")<
  Notes,
  {
    /** Writes a note on a live entity of the organisation (else 422 naming `entity_id`); a call note logs its call. */
    readonly log: (
      organisation: Organisation,
      input: NoteCreate,
      actor: Actor
    ) => Effect.Effect<LoggedNote, ValidationFailed | StorageError>
    /** The notes of the organisation, or of one entity, newest first. */
    readonly list: (organisation: Organisation, query: NoteListQuery) => Effect.Effect<PageResult<Note>, StorageError>
    readonly get: (organisation: Organisation, id: NoteId) => Effect.Effect<Note, NotFound | StorageError>
    /** Pins or unpins a note; a patch that moves nothing answers the note as it is. */
    readonly update: (
      organisation: Organisation,
      id: NoteId,
      patch: NotePatch
    ) => Effect.Effect<Note, NotFound | StorageError>
  }
>() {}

const UNKNOWN_NUMBER = "unknown"

/** The manual call a call note logs: the entity's contact on the far end, with its phone when known. */
const callOf = (input: NoteCreate, entity: EntitySummary, now: string) => {
  const call = input.call ?? { direction: "outbound" as const, status: "completed" as const, duration_seconds: 0 }
  const theirs = entity.contact_phone ?? UNKNOWN_NUMBER
  return {
    provider: "manual",
    direction: call.direction,
    status: call.status,
    duration_seconds: call.duration_seconds,
    from_number: call.from_number ?? (call.direction === "inbound" ? theirs : UNKNOWN_NUMBER),
    to_number: call.to_number ?? (call.direction === "outbound" ? theirs : UNKNOWN_NUMBER),
    contact_id: entity.contact_id,
    started_at: call.started_at ?? now
  }
}

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* NoteRepository
  const calls = yield* Calls
  const tx = yield* Transaction
  const repos = {
    contacts: yield* ContactRepository,
    companies: yield* CompanyRepository,
    deals: yield* DealRepository,
    records: yield* RecordRepository
  }

  return Notes.of({
    log: operation("Notes.log")(function* (organisation, input, actor) {
      return yield* tx.run(
        Effect.gen(function* () {
          const found = yield* findEntity(repos, organisation.id, input.entity_type, input.entity_id)
          if (Option.isNone(found)) {
            return yield* invalidField(
              "entity_id",
              `no such ${input.entity_type} in this organisation: ${input.entity_id}`,
              "unknown_reference"
            )
          }
          const now = yield* nowIso
          const call = input.type === "call" ? yield* calls.log(organisation, callOf(input, found.value, now)) : null
          const note: Note = {
            id: brand(NoteId, ids.next()),
            entity_type: input.entity_type,
            entity_id: input.entity_id,
            type: input.type,
            body: input.body,
            call_id: call?.id ?? null,
            author_key_id: actor.keyId,
            pinned: input.pinned,
            created_at: now
          }
          yield* repo.insert(organisation.id, note)
          return { note, call }
        })
      )
    }),
    list: (organisation, query) =>
      repo
        .list(
          organisation.id,
          {
            ...(query.entity_type === undefined ? {} : { entityType: query.entity_type }),
            ...(query.entity_id === undefined ? {} : { entityId: query.entity_id }),
            ...(query.pinned === undefined ? {} : { pinned: query.pinned })
          },
          query
        )
        .pipe(Effect.map((rows) => toPage(rows, query))),
    get: (organisation, id) => repo.get(organisation.id, id).pipe(orNotFound("note")),
    update: operation("Notes.update")((organisation, id, patch) =>
      (patch.pinned === undefined ? repo.get(organisation.id, id) : repo.pin(organisation.id, id, patch.pinned)).pipe(
        orNotFound("note")
      )
    )
  })
})

export const layer = Layer.effect(Notes, make)
