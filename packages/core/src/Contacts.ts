/** Contacts: people of one organisation, with at most one live holder per email address. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { type Upserted, upsertAll, upsertBy, writeChange } from "./Batch.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import type { ContactErasure } from "./Contacts/ContactErasure.js"
import { ContactId } from "./Contacts/ContactIds.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import type {
  Contact,
  ContactCreate,
  ContactListQuery,
  ContactPatch,
  ContactUpsert
} from "./Contacts/ContactSchemas.js"
import { Cursors } from "./Cursors.js"
import {
  type BatchFailed,
  type EmailAlreadyExists,
  NotFound,
  type PlanRefused,
  type StorageError,
  type ValidationFailed
} from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { archiveLive, merge, nowIso, orNotFound, requireLink, withinLimit } from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import type { Actor, ResourceService } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import { normaliseEmail } from "./Wire.js"

export * from "./Contacts/ContactErasure.js"
export * from "./Contacts/ContactRepository.js"
export * from "./Contacts/ContactSchemas.js"

export class Contacts extends Context.Tag("@crm/core/Contacts")<
  Contacts,
  ResourceService<
    z.output<typeof ContactCreate>,
    z.output<typeof ContactPatch>,
    ContactListQuery,
    Contact,
    EmailAlreadyExists | ValidationFailed | PlanRefused,
    EmailAlreadyExists | ValidationFailed
  > & {
    /**
     * Creates the live contact holding `input.email`, or changes only the fields sent; a change
     * that alters nothing writes nothing and emits nothing. Concurrent upserts of one address
     * create one contact.
     */
    readonly upsert: (
      organisation: Organisation,
      input: z.output<typeof ContactUpsert>,
      actor: Actor
    ) => Effect.Effect<Upserted<Contact>, EmailAlreadyExists | ValidationFailed | PlanRefused | StorageError>
    /**
     * Upserts of several keys in one unit of work, in order: every one or none (the first refused
     * item is `batch_failed` naming it). Every item's key lock is taken first, in sorted order.
     */
    readonly upsertMany: (
      organisation: Organisation,
      items: ReadonlyArray<z.output<typeof ContactUpsert>>,
      actor: Actor
    ) => Effect.Effect<ReadonlyArray<Upserted<Contact>>, BatchFailed | StorageError>
    /** The lock an upsert of `input` takes (the import takes them all before its first line). */
    readonly upsertKey: (input: z.output<typeof ContactUpsert>) => string
    /**
     * Erases the person for good (see `ContactRepository.erase`) and emits `contact.erased` with
     * the id only. Idempotent: a repeat answers the same and emits nothing; an id the organisation
     * never had is `NotFound`.
     */
    readonly erase: (
      organisation: Organisation,
      id: ContactId,
      actor: Actor
    ) => Effect.Effect<ContactErasure, NotFound | StorageError>
  }
>() {}

const CREATED_FIELDS = [
  "id",
  "first_name",
  "last_name",
  "email",
  "phone",
  "company_id",
  "status",
  "source",
  "custom",
  "created_at"
] as const
const UPDATED_FIELDS = ["id", "first_name", "last_name", "email", "status", "updated_at"] as const

const clean = (email: string | null | undefined) => (email == null ? email : normaliseEmail(email))

const upsertKey = (input: { readonly email: string }) => `contact.email:${normaliseEmail(input.email)}`

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* ContactRepository
  const cursors = yield* Cursors
  const companies = yield* CompanyRepository
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: ContactId) =>
    repo.get(organisationId, id).pipe(orNotFound("contact"))

  // Inside the caller's unit of work.
  const insert = Effect.fnUntraced(function* (organisation: Organisation, input: z.output<typeof ContactCreate>) {
    yield* requireLink("company_id", input.company_id, (id) => companies.get(organisation.id, id))
    const now = yield* nowIso
    const contact: Contact = {
      id: brand(ContactId, ids.next()),
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      email: clean(input.email) ?? null,
      phone: input.phone ?? null,
      company_id: input.company_id ?? null,
      status: input.status ?? "lead",
      source: input.source ?? null,
      custom: input.custom ?? {},
      created_at: now,
      updated_at: now
    }
    yield* repo.insert(organisation.id, contact)
    yield* withinLimit(tx, organisation.id, organisation.settings.plan.max_contacts, "MAX_CONTACTS", repo.countLive)
    yield* events.append(organisation.id, [{ event: "contact.created", data: pick(contact, CREATED_FIELDS) }], now)
    return contact
  })

  // Inside the caller's unit of work; `None` when `onlyIfChanged` and the patch alters nothing.
  const change = Effect.fnUntraced(function* (
    organisation: Organisation,
    current: Contact,
    patch: z.output<typeof ContactPatch>,
    onlyIfChanged: boolean
  ) {
    yield* requireLink("company_id", patch.company_id, (companyId) => companies.get(organisation.id, companyId))
    const now = yield* nowIso
    const contact = { ...merge(current, { ...patch, email: clean(patch.email) }), updated_at: now }
    return yield* writeChange(
      current,
      contact,
      onlyIfChanged,
      Effect.zipRight(
        repo.update(organisation.id, contact),
        events.append(organisation.id, [{ event: "contact.updated", data: pick(contact, UPDATED_FIELDS) }], now)
      )
    )
  })

  const upsert = operation("Contacts.upsert")((organisation: Organisation, input: z.output<typeof ContactUpsert>) => {
    const email = normaliseEmail(input.email)
    return upsertBy(
      tx,
      organisation.id,
      upsertKey(input),
      repo.findByEmail(organisation.id, email),
      insert(organisation, { ...input, email }),
      (current) => change(organisation, current, { ...input, email }, true)
    )
  })

  return Contacts.of({
    create: operation("Contacts.create")(insert, (effect) => tx.run(effect)),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Contacts.update")(
      function* (organisation, id, patch) {
        const current = yield* find(organisation.id, id)
        return Option.getOrThrow(yield* change(organisation, current, patch, false))
      },
      (effect) => tx.run(effect)
    ),
    upsertKey,
    upsert,
    upsertMany: operation("Contacts.upsertMany")((organisation, items) =>
      upsertAll(tx, organisation.id, items, upsertKey, (item) => upsert(organisation, item))
    ),
    archive: operation("Contacts.archive")((organisation, id) =>
      archiveLive(tx, (at) => repo.archive(organisation.id, id, at), find(organisation.id, id))
    ),
    erase: operation("Contacts.erase")(
      function* (organisation, id) {
        const now = yield* nowIso
        const outcome = yield* repo.erase(organisation.id, id, now)
        if (Option.isNone(outcome)) return yield* new NotFound({ detail: "no such contact" })
        if (outcome.value.changed) {
          yield* events.append(organisation.id, [{ event: "contact.erased", data: { id } }], now)
        }
        return { id, erased: true as const, kept: [...outcome.value.kept] }
      },
      (effect) => tx.run(effect)
    ),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "contacts" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.email !== undefined ? { email: normaliseEmail(query.email) } : {}),
            ...(query.status !== undefined ? { status: query.status } : {}),
            ...(query.q !== undefined && query.q !== "" ? { q: query.q } : {})
          },
          page
        )
      )
  })
})

export const layer = Layer.effect(Contacts, make)
