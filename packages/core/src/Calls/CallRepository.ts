import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { CallId } from "./CallIds.js"
import type { Call, CallDirection, CallStatus } from "./CallSchemas.js"

export interface CallFilter {
  readonly contactId?: ContactId
  readonly direction?: CallDirection
  readonly status?: CallStatus
}

/** The phone calls of one organisation. */
export class CallRepository extends Context.Tag("@crm/core/CallRepository")<
  CallRepository,
  {
    readonly insert: (organisationId: OrganisationId, call: Call) => Effect.Effect<void, StorageError>
    readonly get: (organisationId: OrganisationId, id: CallId) => Effect.Effect<Option.Option<Call>, StorageError>
    /** Like `get`, and no other unit of work changes the call until the calling one ends. */
    readonly getForUpdate: (
      organisationId: OrganisationId,
      id: CallId
    ) => Effect.Effect<Option.Option<Call>, StorageError>
    readonly update: (organisationId: OrganisationId, call: Call) => Effect.Effect<void, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: CallFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Call>, StorageError>
  }
>() {}
