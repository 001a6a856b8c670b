/**
 * The shape shared by the plain resources of one organisation (contacts, companies, and later
 * deals, tasks, ...): create, get, update, archive, list. Transports build their routes from it.
 */
import type * as Effect from "effect/Effect"
import type { NotFound, StorageError } from "./Errors.js"
import type { Organisation } from "./Settings/SettingsSchemas.js"
import type { PageResult } from "./Wire.js"

/** Who makes a change: the API key, recorded where a record keeps its history (deal stages). */
export interface Actor {
  readonly keyId: string | null
}

export interface ResourceService<Create, Patch, Query, A, CreateError = never, UpdateError = never> {
  readonly create: (
    organisation: Organisation,
    input: Create,
    actor: Actor
  ) => Effect.Effect<A, CreateError | StorageError>
  readonly get: (organisation: Organisation, id: string) => Effect.Effect<A, NotFound | StorageError>
  readonly update: (
    organisation: Organisation,
    id: string,
    patch: Patch,
    actor: Actor
  ) => Effect.Effect<A, UpdateError | NotFound | StorageError>
  readonly archive: (organisation: Organisation, id: string) => Effect.Effect<void, NotFound | StorageError>
  readonly list: (organisation: Organisation, query: Query) => Effect.Effect<PageResult<A>, StorageError>
}
