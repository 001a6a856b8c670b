import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { Note, NoteEntityType } from "./NoteSchemas.js"

export interface NoteFilter {
  readonly entityType?: NoteEntityType
  readonly entityId?: string
}

/** Notes of one organisation: written once, never changed. */
export class NoteRepository extends Context.Tag("@crm/core/NoteRepository")<
  NoteRepository,
  {
    readonly insert: (organisationId: OrganisationId, note: Note) => Effect.Effect<void, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: NoteFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Note>, StorageError>
  }
>() {}
