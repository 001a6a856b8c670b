/**
 * The shape shared by the plain resources of one organisation (contacts, companies, and later
 * deals, tasks, ...): create, get, update, archive, list. Transports build their routes from it.
 */
import type * as Effect from "effect/Effect"
import type { NotFound, StorageError } from "./Errors.js"
import type { Actor, Organisation } from "./Organisation.js"
import type { PageResult } from "./Wire.js"

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
  readonly list: (organisation: Organisation, query: Query) => Effect.Effect<PageResult<A>, StorageError>
}
