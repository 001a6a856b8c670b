import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { MailMessage, MailStatus } from "./MailSchemas.js"

export interface ClaimedMail {
  readonly organisationId: OrganisationId
  /** With the attempt being made already counted. */
  readonly message: MailMessage
}

/**
 * The mail outbox. `enqueue` joins the caller's unit of work, so a message exists exactly when the
 * change it reports committed. Workers of several processes may claim at once: no message is
 * handed to two of them.
 */
export class MailOutbox extends Context.Tag("@crm/core/MailOutbox")<
  MailOutbox,
  {
    readonly enqueue: (organisationId: OrganisationId, message: MailMessage) => Effect.Effect<void, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: { readonly status?: MailStatus },
      page: Page
    ) => Effect.Effect<ReadonlyArray<MailMessage>, StorageError>
    /**
     * Up to `limit` queued messages due at `now`, oldest due first, across organisations. Each
     * comes back with one more attempt counted and its `next_attempt_at` moved to `leaseUntil`, so
     * no other claimer takes it meanwhile, and a worker that dies mid-send leaves it to be retried.
     */
    readonly claimDue: (
      now: string,
      leaseUntil: string,
      limit: number
    ) => Effect.Effect<ReadonlyArray<ClaimedMail>, StorageError>
    /** Stores the outcome of an attempt (status, last error, next attempt, sent time). */
    readonly record: (organisationId: OrganisationId, message: MailMessage) => Effect.Effect<void, StorageError>
  }
>() {}
