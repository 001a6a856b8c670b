/** Custom records: records of the types an organisation defines in its settings, with typed `custom` values. */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { AccessRepository } from "./Access/AccessRepository.js"
import type { CompanyId } from "./Companies/CompanyIds.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import type { ContactId } from "./Contacts/ContactIds.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { Cursors } from "./Cursors.js"
import type { DealId } from "./Deals/DealIds.js"
import { DealRepository } from "./Deals/DealRepository.js"
import { invalidField, type NotFound, type StorageError, type ValidationFailed } from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import {
  heldOrganisation,
  merge,
  nowIso,
  orNotFound,
  partyByKind,
  partyLinks,
  requireLink
} from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import * as RecordFields from "./Records/RecordFields.js"
import { RecordId } from "./Records/RecordIds.js"
import { RecordRepository } from "./Records/RecordRepository.js"
import type {
  CustomRecord,
  RecordCreate,
  RecordListQuery,
  RecordPatch,
  WrittenRecord
} from "./Records/RecordSchemas.js"
import { isBuiltInTarget, type RecordType } from "./Records/RecordTypes.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import type { PageResult } from "./Wire.js"

export * as Formula from "./Records/Formula.js"
export * as RecordFields from "./Records/RecordFields.js"
export * from "./Records/RecordRepository.js"
export * from "./Records/RecordSchemas.js"
export * from "./Records/RecordSettings.js"
export * from "./Records/RecordTypes.js"

export class Records extends Context.Tag("@crm/core/Records")<
  Records,
  {
    readonly create: (
      organisation: Organisation,
      input: z.output<typeof RecordCreate>,
      actor: Actor
    ) => Effect.Effect<WrittenRecord, ValidationFailed | StorageError>
    readonly get: (organisation: Organisation, id: RecordId) => Effect.Effect<CustomRecord, NotFound | StorageError>
    readonly update: (
      organisation: Organisation,
      id: RecordId,
      patch: z.output<typeof RecordPatch>,
      actor: Actor
    ) => Effect.Effect<WrittenRecord, ValidationFailed | NotFound | StorageError>
    readonly list: (
      organisation: Organisation,
      query: RecordListQuery
    ) => Effect.Effect<PageResult<CustomRecord>, ValidationFailed | StorageError>
  }
>() {}

const EVENT_FIELDS = ["id", "type_id", "type_key", "title", "owner_id"] as const

const typeByKey = (organisation: Organisation, key: string): Either.Either<RecordType, ValidationFailed> =>
  Either.fromNullable(
    organisation.settings.record_types.find((type) => type.key === key),
    () => invalidField("type", `no record type ${key} in this organisation`, "unknown_record_type")
  )

// A type removed from the settings leaves its records readable (without computed fields) but not writable.
const typeOf = (organisation: Organisation, record: CustomRecord): Option.Option<RecordType> =>
  Option.fromNullable(organisation.settings.record_types.find((type) => type.id === record.type_id))

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* RecordRepository
  const cursors = yield* Cursors
  const contacts = yield* ContactRepository
  const companies = yield* CompanyRepository
  const deals = yield* DealRepository
  const events = yield* EventLog
  const tx = yield* Transaction
  const access = yield* AccessRepository
  const parties = partyLinks(contacts, companies)
  const party = partyByKind(contacts, companies, deals)

  const find = (organisationId: OrganisationId, id: RecordId) => repo.get(organisationId, id).pipe(orNotFound("record"))

  const links = (
    organisationId: OrganisationId,
    input: {
      readonly contact_id?: ContactId | null | undefined
      readonly company_id?: CompanyId | null | undefined
      readonly deal_id?: DealId | null | undefined
    }
  ) =>
    Effect.zipRight(
      parties(organisationId, input),
      requireLink("deal_id", input.deal_id, (id) => deals.get(organisationId, id))
    )

  // Every id a relation field names must be a live record of its target in the organisation.
  const references = (organisation: Organisation, refs: ReadonlyArray<RecordFields.Reference>) =>
    Effect.forEach(
      refs,
      (ref) => {
        if (isBuiltInTarget(ref.target)) {
          const target = ref.target
          const exists = (id: string) => requireLink(ref.field, id, (linked) => party(organisation.id, target, linked))
          return Effect.forEach(ref.ids, exists, { discard: true })
        }
        // Compared by type id: a record's stored key may predate a renamed type.
        const target = organisation.settings.record_types.find((type) => type.key === ref.target)
        return Effect.flatMap(repo.getMany(organisation.id, ref.ids), (found) => {
          const missing = ref.ids.find((id) => !found.some((row) => row.id === id && row.type_id === target?.id))
          return missing === undefined
            ? Effect.void
            : Effect.fail(
                invalidField(ref.field, `no ${ref.target} record in this organisation: ${missing}`, "unknown_reference")
              )
        })
      },
      { discard: true }
    )

  /**
   * Records as answered: stored values plus every formula and rollup. The records the rollups read
   * are loaded in one query for the whole page.
   */
  const present = (
    organisation: Organisation,
    records: ReadonlyArray<CustomRecord>
  ): Effect.Effect<Array<CustomRecord>, StorageError> => {
    const typed = records.map((record) => ({ record, type: Option.getOrUndefined(typeOf(organisation, record)) }))
    const linkedIdsOf = (record: CustomRecord, type: RecordType) =>
      RecordFields.rollupRelations(type).flatMap((relation) => RecordFields.linkedIds(record.custom, relation))
    const ids = [...new Set(typed.flatMap(({ record, type }) => (type === undefined ? [] : linkedIdsOf(record, type))))]
    return Effect.map(
      ids.length === 0
        ? Effect.succeed([])
        : repo.getMany(
            organisation.id,
            ids.map((id) => brand(RecordId, id))
          ),
      (rows) => {
        // Keyed by the plain id: the links are read back out of custom values, unbranded.
        const byId = new Map<string, CustomRecord["custom"]>(rows.map((row) => [row.id, row.custom]))
        return typed.map(({ record, type }) => {
          if (type === undefined) return record
          const linked = (relation: string) =>
            RecordFields.linkedIds(record.custom, relation).flatMap((id) => {
              const custom = byId.get(id)
              return custom === undefined ? [] : [custom]
            })
          return { ...record, type_key: type.key, custom: RecordFields.withComputed(type, record.custom, linked) }
        })
      }
    )
  }

  const presentOne = (organisation: Organisation, record: CustomRecord) =>
    Effect.map(present(organisation, [record]), ([shown]) => shown!)

  const written = (organisation: Organisation, record: CustomRecord, ignored: ReadonlyArray<string>) =>
    Effect.map(presentOne(organisation, record), (shown): WrittenRecord => ({ ...shown, ignored_fields: [...ignored] }))

  return Records.of({
    create: operation("Records.create")(function* (requested, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const organisation = yield* heldOrganisation(access, requested)
          const type = yield* typeByKey(organisation, input.type)
          const normalised = yield* RecordFields.normalise(type, input.custom ?? {})
          yield* links(organisation.id, input)
          yield* references(organisation, normalised.references)
          const now = yield* nowIso
          const record: CustomRecord = {
            id: brand(RecordId, ids.next()),
            type_id: type.id,
            type_key: type.key,
            title: input.title ?? null,
            owner_id: input.owner_id ?? null,
            custom: normalised.custom,
            contact_id: input.contact_id ?? null,
            company_id: input.company_id ?? null,
            deal_id: input.deal_id ?? null,
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, record)
          yield* events.append(organisation.id, [{ event: "record.created", data: pick(record, EVENT_FIELDS) }], now)
          return yield* written(organisation, record, normalised.ignored)
        })
      )
    }),
    get: (organisation, id) => Effect.flatMap(find(organisation.id, id), (record) => presentOne(organisation, record)),
    update: operation("Records.update")(function* (requested, id, patch) {
      return yield* tx.run(
        Effect.gen(function* () {
          const organisation = yield* heldOrganisation(access, requested)
          const current = yield* repo.getForUpdate(organisation.id, id).pipe(orNotFound("record"))
          const type = yield* Option.match(typeOf(organisation, current), {
            onNone: () =>
              Effect.fail(
                invalidField("type", `record type ${current.type_key} is no longer defined`, "unknown_record_type")
              ),
            onSome: Effect.succeed
          })
          const normalised =
            patch.custom === undefined
              ? { custom: current.custom, ignored: [], references: [] }
              : yield* RecordFields.normalise(type, patch.custom, current.custom)
          yield* links(organisation.id, patch)
          yield* references(organisation, normalised.references)
          const now = yield* nowIso
          const { custom: _sent, ...fields } = patch
          const record: CustomRecord = {
            ...merge(current, fields),
            type_key: type.key,
            custom: normalised.custom,
            updated_at: now
          }
          yield* repo.update(organisation.id, record)
          yield* events.append(organisation.id, [{ event: "record.updated", data: pick(record, EVENT_FIELDS) }], now)
          return yield* written(organisation, record, normalised.ignored)
        })
      )
    }),
    list: (organisation, query) =>
      Effect.gen(function* () {
        const type = query.type === undefined ? undefined : yield* typeByKey(organisation, query.type)
        const listed = yield* cursors.page({ organisationId: organisation.id, list: "records" }, query, (page) =>
          repo.list(
            organisation.id,
            {
              ...(type !== undefined ? { typeId: type.id } : {}),
              ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
              ...(query.company_id !== undefined ? { companyId: query.company_id } : {}),
              ...(query.deal_id !== undefined ? { dealId: query.deal_id } : {}),
              ...(query.q !== undefined && query.q !== "" ? { q: query.q } : {})
            },
            page
          )
        )
        return { ...listed, data: yield* present(organisation, listed.data) }
      })
  })
})

export const layer = Layer.effect(Records, make)
