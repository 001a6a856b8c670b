/** Calls: phone calls logged by a telephony provider or by hand, and their transcripts. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import { CallId } from "./Calls/CallIds.js"
import * as CallOutcome from "./Calls/CallOutcome.js"
import { CallRepository } from "./Calls/CallRepository.js"
import type { Call, CallListQuery, CallLog, CallTranscription } from "./Calls/CallSchemas.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import type { NotFound, StorageError, ValidationFailed } from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { nowIso, orNotFound, requireLink } from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { Transaction } from "./Transaction.js"
import { type PageResult, toPage, toUtc } from "./Wire.js"

export * as CallOutcome from "./Calls/CallOutcome.js"
export * from "./Calls/CallRepository.js"
export * from "./Calls/CallSchemas.js"

export class Calls extends Context.Tag("@crm/core/Calls")<
  Calls,
  {
    /** Records a call; emits `call.ended` or `call.missed` as `CallOutcome` says (a failed call emits nothing). */
    readonly log: (
      organisation: Organisation,
      input: z.output<typeof CallLog>
    ) => Effect.Effect<Call, ValidationFailed | StorageError>
    /** Stores (or replaces) the transcript and summary; emits `call.transcribed`. */
    readonly transcribe: (
      organisation: Organisation,
      id: CallId,
      input: z.output<typeof CallTranscription>
    ) => Effect.Effect<Call, NotFound | StorageError>
    readonly get: (organisation: Organisation, id: CallId) => Effect.Effect<Call, NotFound | StorageError>
    readonly list: (organisation: Organisation, query: CallListQuery) => Effect.Effect<PageResult<Call>, StorageError>
  }
>() {}

const CALL_FIELDS = [
  "id",
  "provider",
  "direction",
  "status",
  "duration_seconds",
  "from_number",
  "to_number",
  "contact_id",
  "recording_url"
] as const
const TRANSCRIBED_FIELDS = [...CALL_FIELDS, "transcript", "summary"] as const

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* CallRepository
  const contacts = yield* ContactRepository
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: CallId) => repo.get(organisationId, id).pipe(orNotFound("call"))
  const lock = (organisationId: OrganisationId, id: CallId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("call"))

  return Calls.of({
    log: operation("Calls.log")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          yield* requireLink("contact_id", input.contact_id, (id) => contacts.get(organisation.id, id))
          const now = yield* nowIso
          const call: Call = {
            id: brand(CallId, ids.next()),
            provider: input.provider,
            external_id: input.external_id ?? null,
            direction: input.direction,
            status: input.status,
            duration_seconds: input.duration_seconds,
            from_number: input.from_number,
            to_number: input.to_number,
            contact_id: input.contact_id ?? null,
            recording_url: input.recording_url ?? null,
            started_at: toUtc(input.started_at),
            transcript: null,
            summary: null,
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, call)
          const event = CallOutcome.EVENT_OF[call.status]
          if (event !== null) yield* events.append(organisation.id, [{ event, data: pick(call, CALL_FIELDS) }], now)
          return call
        })
      )
    }),
    transcribe: operation("Calls.transcribe")(function* (organisation, id, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          const now = yield* nowIso
          const call: Call = {
            ...current,
            transcript: input.transcript,
            summary: input.summary ?? null,
            updated_at: now
          }
          yield* repo.update(organisation.id, call)
          yield* events.append(
            organisation.id,
            [{ event: "call.transcribed", data: pick(call, TRANSCRIBED_FIELDS) }],
            now
          )
          return call
        })
      )
    }),
    get: (organisation, id) => find(organisation.id, id),
    list: (organisation, query) =>
      repo
        .list(
          organisation.id,
          {
            ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
            ...(query.direction !== undefined ? { direction: query.direction } : {}),
            ...(query.status !== undefined ? { status: query.status } : {})
          },
          query
        )
        .pipe(Effect.map((rows) => toPage(rows, query)))
  })
})

export const layer = Layer.effect(Calls, make)
