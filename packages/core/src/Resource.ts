/**
 * The shape shared by the plain resources of one organisation (contacts, companies, and later
 * deals, tasks, ...): create, get, update, archive, list. Transports build their routes from it.
 */
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { NotFound, StorageError, ValidationFailed } from "./Errors.js"
import type { Actor, Organisation, OrganisationId } from "./Organisation.js"
import type { Page, PageResult } from "./Wire.js"

// Kept here too, where transports have always found it.
export type { Actor }

/** The id of a resource's records (branded, as its schema declares it). */
export type IdOf<A> = A extends { readonly id: infer Id } ? Id : string

export interface ResourceService<Create, Patch, Query, A, CreateError = never, UpdateError = never> {
  readonly create: (
    organisation: Organisation,
    input: Create,
    actor: Actor
  ) => Effect.Effect<A, CreateError | StorageError>
  readonly get: (organisation: Organisation, id: IdOf<A>) => Effect.Effect<A, NotFound | StorageError>
  readonly update: (
    organisation: Organisation,
    id: IdOf<A>,
    patch: Patch,
    actor: Actor
  ) => Effect.Effect<A, UpdateError | NotFound | StorageError>
  readonly archive: (organisation: Organisation, id: IdOf<A>) => Effect.Effect<void, NotFound | StorageError>
  /** `ValidationFailed` for a query the service itself refuses (a cursor its list did not give out). */
  readonly list: (
    organisation: Organisation,
    query: Query
  ) => Effect.Effect<PageResult<A>, ValidationFailed | StorageError>
}

/**
 * The operations the storage ports of one organisation's records share; each port picks those it
 * has (`Pick<RecordStore<Order, OrderFilter>, "get" | "list">`) and declares the rest itself.
 */
export interface RecordStore<
  A extends { readonly id: string },
  Filter,
  InsertError = never,
  UpdateError = InsertError
> {
  readonly insert: (organisationId: OrganisationId, record: A) => Effect.Effect<void, InsertError | StorageError>
  readonly get: (organisationId: OrganisationId, id: IdOf<A>) => Effect.Effect<Option.Option<A>, StorageError>
  /** Like `get`, and no other unit of work changes the record until the calling one ends. */
  readonly getForUpdate: (organisationId: OrganisationId, id: IdOf<A>) => Effect.Effect<Option.Option<A>, StorageError>
  readonly update: (organisationId: OrganisationId, record: A) => Effect.Effect<void, UpdateError | StorageError>
  /** Archives the live record; false when there was none with this id. */
  readonly archive: (organisationId: OrganisationId, id: IdOf<A>, at: string) => Effect.Effect<boolean, StorageError>
  /** Newest first, ties by id; at most `limit + 1` rows. */
  readonly list: (
    organisationId: OrganisationId,
    filter: Filter,
    page: Page
  ) => Effect.Effect<ReadonlyArray<A>, StorageError>
}
