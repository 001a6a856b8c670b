import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { NoteId } from "./NoteIds.js"
import type { Note, NoteEntityType } from "./NoteSchemas.js"

export interface NoteFilter {
  readonly entityType?: NoteEntityType
  readonly entityId?: string
  readonly pinned?: boolean
}

/** Notes of one organisation: written once, never changed but for their pin, never archived. */
export class NoteRepository extends Context.Tag("@crm/core/NoteRepository")<
  NoteRepository,
  {
    readonly insert: (organisationId: OrganisationId, note: Note) => Effect.Effect<void, StorageError>
    readonly get: (organisationId: OrganisationId, id: NoteId) => Effect.Effect<Option.Option<Note>, StorageError>
    /** Sets the note's pin; the note as it now is, or none when there is no such note. */
    readonly pin: (
      organisationId: OrganisationId,
      id: NoteId,
      pinned: boolean
    ) => Effect.Effect<Option.Option<Note>, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: NoteFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Note>, StorageError>
  }
>() {}
