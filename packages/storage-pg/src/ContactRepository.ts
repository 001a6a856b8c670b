import { Contacts, Errors } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { eraseCopies } from "./ContactErasure.js"
import { isUniqueViolation, orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type ContactRow, contactTable, toContact } from "./internal/rows.js"

const LIVE_EMAIL = "contacts_live_email"

const contacts = LiveRecords.liveTable({
  table: contactTable,
  toRecord: toContact,
  searchable: ["first_name", "last_name", "email", "phone"],
  repository: "ContactRepository"
})

export const make: Effect.Effect<
  Context.Tag.Service<typeof Contacts.ContactRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, contacts)

  const holderOf = (organisationId: string, email: string) =>
    sql<{ id: string }>`SELECT id FROM contacts WHERE ${live.whereLive(organisationId)} AND email = ${email}`

  const taken = (organisationId: string, email: string) =>
    Effect.flatMap(holderOf(organisationId, email), (rows) =>
      Effect.fail(
        new Errors.EmailAlreadyExists({
          detail: { id: rows[0]?.id ?? null, message: "a live contact already has this email" }
        })
      )
    )

  // An update has no ON CONFLICT: it runs in its own savepoint, so a unique violation rolls back
  // only that and the caller's transaction can still read the holder (and go on, or roll back).
  const guardEmail =
    (organisationId: string, email: string | null): LiveRecords.Guard<Errors.EmailAlreadyExists> =>
    (write) =>
      email === null
        ? write
        : sql.withTransaction(write).pipe(
            Effect.catchIf(
              (error) => isUniqueViolation(error, LIVE_EMAIL),
              () => taken(organisationId, email)
            )
          )

  // The arbiter is the partial unique index LIVE_EMAIL, named by its columns and predicate.
  const insertUnlessTaken = live.insertUnlessTaken(
    "(organisation_id, email) WHERE archived_at IS NULL AND email IS NOT NULL"
  )

  return Contacts.ContactRepository.of({
    insert: (organisationId, contact) =>
      insertUnlessTaken(organisationId, contact).pipe(
        Effect.flatMap((inserted) =>
          inserted || contact.email === null ? Effect.void : taken(organisationId, contact.email)
        ),
        orStorageError("ContactRepository.insert")
      ),
    get: live.get,
    findByEmail: (organisationId, email) => live.findBy(organisationId, sql`email = ${email}`, "findByEmail", true),
    update: (organisationId, contact) =>
      live.update(organisationId, contact.id, contact, guardEmail(organisationId, contact.email)),
    archive: live.archive,
    list: (organisationId, filter, page) =>
      live.list(organisationId, filter, page, [
        ...(filter.email !== undefined ? [sql`email = ${filter.email}`] : []),
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : [])
      ]),
    countLive: live.countLive,

    // The row locked first: concurrent erasures of one person run one after the other, and the
    // second finds nothing left to change.
    erase: (organisationId, id, at) =>
      Effect.gen(function* () {
        const rows = yield* sql<ContactRow & { archived: boolean }>`SELECT ${live.selected},
            archived_at IS NOT NULL AS archived
          FROM contacts WHERE organisation_id = ${organisationId}::uuid AND id = ${id}::uuid FOR UPDATE`
        const row = rows[0]
        if (row === undefined) return Option.none()
        const contact = toContact(row)
        const others =
          contact.email === null
            ? []
            : yield* sql`SELECT 1 FROM contacts WHERE ${live.whereLive(organisationId)}
                AND email = ${contact.email} AND id <> ${id}::uuid`
        const copies = yield* eraseCopies(sql, organisationId, contact, others.length > 0 ? null : contact.email, at)
        const rowChanged = !row.archived || Contacts.holdsPersonalData(contact)
        if (rowChanged) {
          yield* sql`UPDATE contacts SET first_name = NULL, last_name = NULL, email = NULL, phone = NULL,
              source = NULL, custom = '{}'::jsonb, updated_at = ${at}::timestamptz,
              archived_at = coalesce(archived_at, ${at}::timestamptz)
            WHERE organisation_id = ${organisationId}::uuid AND id = ${id}::uuid`
        }
        return Option.some({ changed: rowChanged || copies.changed, kept: copies.kept })
      }).pipe(orStorageError("ContactRepository.erase"))
  })
})

export const layer = Layer.effect(Contacts.ContactRepository, make)
