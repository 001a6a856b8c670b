/** Contacts in memory: live rows per organisation plus an index of the live holder of each address. */
import { Contacts, Errors } from "@crm/core"
import type * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { eraseCopies } from "./ContactErasure.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type Store, slot, type Tenant, tenant, withTenant, write } from "./internal/Store.js"

const contacts = LiveRecords.table<Contacts.Contact>("contacts")
/** Live holder of each address: the uniqueness rule, checked in O(1). */
const contactEmails = slot("contacts.emails", HashMap.empty<string, string>())

const taken = (holder: string) =>
  new Errors.EmailAlreadyExists({ detail: { id: holder, message: "a live contact already has this email" } })

// A holder is always a live contact, and an insert's id is never one, so on insert any holder refuses.
const indexEmail = (
  t: Tenant,
  contact: Contacts.Contact,
  previous: Contacts.Contact | undefined
): Either.Either<Tenant, Errors.EmailAlreadyExists> => {
  const emails = contactEmails.get(t)
  const holder = contact.email === null ? Option.none() : HashMap.get(emails, contact.email)
  if (Option.isSome(holder) && holder.value !== contact.id) return Either.left(taken(holder.value))
  const freed = previous === undefined || previous.email === null ? emails : HashMap.remove(emails, previous.email)
  return Either.right(
    contactEmails.set(t, contact.email === null ? freed : HashMap.set(freed, contact.email, contact.id))
  )
}

// Archiving frees the address for a new live contact.
const releaseEmail = (t: Tenant, { email }: Contacts.Contact): Tenant =>
  email === null ? t : contactEmails.update(t, (emails) => HashMap.remove(emails, email))

export const make = (store: Store): Context.Tag.Service<typeof Contacts.ContactRepository> => {
  const live = LiveRecords.make<Contacts.Contact, Errors.EmailAlreadyExists>(store, {
    table: contacts,
    noun: "contact",
    searchable: (contact) => [contact.first_name, contact.last_name, contact.email, contact.phone],
    onWrite: indexEmail,
    onArchive: releaseEmail
  })
  return Contacts.ContactRepository.of({
    insert: live.insert,
    get: live.get,
    findByEmail: (organisationId, email) => live.findBy(organisationId, (contact) => contact.email === email),
    update: live.update,
    archive: live.archive,
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        filter,
        page,
        (contact) =>
          (filter.email === undefined || contact.email === filter.email) &&
          (filter.status === undefined || contact.status === filter.status)
      ),
    countLive: live.countLive,

    erase: (organisationId, id, at) =>
      write<Option.Option<Contacts.ErasureOutcome>, Errors.StorageError>(store, (state) => {
        const t = tenant(state, organisationId)
        const row = HashMap.get(contacts.get(t), id)
        if (Option.isNone(row)) return [Either.right(Option.none()), state]
        const { record: contact, archivedAt } = row.value
        const holder = contact.email === null ? Option.none() : HashMap.get(contactEmails.get(t), contact.email)
        const address = Option.isSome(holder) && holder.value !== id ? null : contact.email
        const released = archivedAt === null ? releaseEmail(t, contact) : t
        const erased = eraseCopies(released, contact, address, at)
        const rowChanged = archivedAt === null || Contacts.holdsPersonalData(contact)
        const next = rowChanged
          ? contacts.update(erased.tenant, (rows) =>
              HashMap.set(rows, id, { record: Contacts.erasedContact(contact, at), archivedAt: archivedAt ?? at })
            )
          : erased.tenant
        const outcome = { changed: rowChanged || erased.changed, kept: erased.kept }
        return [Either.right(Option.some(outcome)), withTenant(state, organisationId, next)]
      })
  })
}
