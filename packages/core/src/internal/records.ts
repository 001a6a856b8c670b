import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AccessRepository } from "../Access/AccessRepository.js"
import { CompanyId } from "../Companies/CompanyIds.js"
import { ContactId } from "../Contacts/ContactIds.js"
import { DealId } from "../Deals/DealIds.js"
import { invalidField, NotFound, PlanRefused, type StorageError, type ValidationFailed } from "../Errors.js"
import { brand } from "../Ids.js"
import type { Organisation, OrganisationId } from "../Organisation.js"
import type { Transaction } from "../Transaction.js"

export const nowIso = Effect.map(
  Effect.clockWith((clock) => clock.currentTimeMillis),
  (ms) => new Date(ms).toISOString()
)

export const orNotFound =
  (what: string) =>
  <A, E, R>(self: Effect.Effect<Option.Option<A>, E, R>) =>
    Effect.flatMap(
      self,
      Option.match({
        onNone: () => Effect.fail(new NotFound({ detail: `no such ${what}` })),
        onSome: Effect.succeed
      })
    )

/**
 * Inside a unit of work: the organisation as committed, held until the unit ends. A write that
 * acts on the settings (a deal entering a stage, a record holding a field's value) uses it, not
 * the copy its request authenticated with: a settings replacement committed meanwhile is then
 * what it reads, and one still to come waits for it and counts what it wrote.
 */
export const heldOrganisation = (
  access: Context.Tag.Service<typeof AccessRepository>,
  organisation: Organisation
): Effect.Effect<Organisation, StorageError> =>
  Effect.map(
    access.holdOrganisation(organisation.id, "share"),
    Option.getOrElse(() => organisation)
  )

/** The record a required link points at: a live record of the same organisation (else 422 naming the field). */
export const linked = <I extends string, A, E, R>(
  field: string,
  id: I,
  lookup: (id: I) => Effect.Effect<Option.Option<A>, E, R>
): Effect.Effect<A, E | ValidationFailed, R> =>
  Effect.flatMap(
    lookup(id),
    Option.match({
      onNone: () => Effect.fail(invalidField(field, `no such record in this organisation: ${id}`, "unknown_reference")),
      onSome: Effect.succeed
    })
  )

/** A link to another record must point at a live record of the same organisation (422 naming the field). */
export const requireLink = <I extends string, E, R>(
  field: string,
  id: I | null | undefined,
  lookup: (id: I) => Effect.Effect<Option.Option<unknown>, E, R>
): Effect.Effect<void, E | ValidationFailed, R> => (id == null ? Effect.void : Effect.asVoid(linked(field, id, lookup)))

/**
 * A counted plan limit (null = unlimited: no lock, no count) refuses the create that took the
 * organisation past it. Run inside the create's unit of work, after its insert: the count, taken
 * under the organisation's lock held until commit, includes the new record and every record
 * committed before, so concurrent creates cannot all take the same free place. Locking after the
 * insert rather than before keeps the lock the last thing a unit waits for (as the event log's
 * append does): a unit holding it never waits on a row that another unit, itself waiting for the
 * lock, has written (a contact PATCH taking the address being inserted, say).
 */
export const withinLimit = (
  tx: Transaction["Type"],
  organisationId: OrganisationId,
  limit: number | null,
  code: string,
  count: (organisationId: OrganisationId) => Effect.Effect<number, StorageError>
): Effect.Effect<void, PlanRefused | StorageError> =>
  limit === null
    ? Effect.void
    : tx.lockOrganisation(organisationId).pipe(
        Effect.zipRight(count(organisationId)),
        Effect.flatMap((n) => (n > limit ? Effect.fail(new PlanRefused({ detail: code })) : Effect.void))
      )

/** PATCH semantics: an omitted field keeps its value, `null` clears it. */
export const merge = <T extends object>(current: T, patch: { readonly [K in keyof T]?: T[K] | undefined }): T => {
  const next = { ...current }
  for (const key of Object.keys(patch) as Array<keyof T>) {
    const value = patch[key]
    if (value !== undefined) next[key] = value as T[keyof T]
  }
  return next
}

/**
 * DELETE: archives the live record in its own unit of work. Nothing archived means the record is
 * missing or already archived, which `find` then reports as `not_found`.
 */
export const archiveLive = <E, R>(
  tx: Transaction["Type"],
  archive: (at: string) => Effect.Effect<boolean, StorageError>,
  find: Effect.Effect<unknown, E, R>
): Effect.Effect<void, E | StorageError, R> =>
  Effect.flatMap(tx.run(Effect.flatMap(nowIso, archive)), (archived) => (archived ? Effect.void : Effect.asVoid(find)))

/**
 * The organisation owning a record the admin API names by id alone; an unknown id (or an
 * organisation that is gone) is `not_found`, as on the REST API.
 */
export const owningOrganisation = (
  organisationOf: Effect.Effect<Option.Option<OrganisationId>, StorageError>,
  getOrganisation: (id: OrganisationId) => Effect.Effect<Option.Option<Organisation>, StorageError>,
  what: string
): Effect.Effect<Organisation, NotFound | StorageError> =>
  organisationOf.pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.succeed(Option.none()), onSome: getOrganisation })),
    orNotFound(what)
  )

/** A port that reads one live record of an organisation by its (branded) id. */
interface Lookup<I> {
  readonly get: (organisationId: OrganisationId, id: I) => Effect.Effect<Option.Option<unknown>, StorageError>
}

/**
 * The live contact, company or deal a link names by its kind and an id that is not typed by it
 * (a task's `entity_id`, a record's relation): the kind says which id it is, so it is branded here.
 */
export const partyByKind =
  (contacts: Lookup<ContactId>, companies: Lookup<CompanyId>, deals: Lookup<DealId>) =>
  (
    organisationId: OrganisationId,
    kind: "contact" | "company" | "deal",
    id: string
  ): Effect.Effect<Option.Option<unknown>, StorageError> =>
    kind === "contact"
      ? contacts.get(organisationId, brand(ContactId, id))
      : kind === "company"
        ? companies.get(organisationId, brand(CompanyId, id))
        : deals.get(organisationId, brand(DealId, id))

/** The contact and company a deal or quote links to: each, when given, a live record of the organisation. */
export const partyLinks =
  (contacts: Lookup<ContactId>, companies: Lookup<CompanyId>) =>
  (
    organisationId: OrganisationId,
    links: { readonly contact_id?: ContactId | null | undefined; readonly company_id?: CompanyId | null | undefined }
  ): Effect.Effect<void, ValidationFailed | StorageError> =>
    Effect.zipRight(
      requireLink("contact_id", links.contact_id, (id) => contacts.get(organisationId, id)),
      requireLink("company_id", links.company_id, (id) => companies.get(organisationId, id))
    )
