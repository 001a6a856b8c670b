import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { EventName } from "./EventCatalogue.js"
import type { EventEnvelope } from "./EventSchemas.js"

export interface NewEvent {
  readonly event: EventName
  readonly data: Record<string, unknown>
}

/**
 * The append-only event history, and the webhook outbox it feeds. `append` must be the last write
 * of a unit of work: adapters make ids visible in order per organisation (a poller following the
 * cursor never skips one). In the same atomic write, `append` records the outbox: for each event,
 * one pending delivery, due at once, per hook of the organisation that `Webhooks.receives` selects
 * (see `Webhooks/Subscription.ts`), carrying `JSON.stringify` of the envelope as polled.
 */
export class EventLog extends Context.Tag("@crm/core/EventLog")<
  EventLog,
  {
    readonly append: (
      organisationId: OrganisationId,
      events: ReadonlyArray<NewEvent>,
      at: string
    ) => Effect.Effect<void, StorageError>
    /** Events with id greater than `since`, oldest first, at most `limit + 1` so the caller knows `has_more`. */
    readonly after: (
      organisationId: OrganisationId,
      query: { readonly since: bigint; readonly event: EventName | undefined; readonly limit: number }
    ) => Effect.Effect<ReadonlyArray<EventEnvelope>, StorageError>
    readonly purgeBefore: (at: string) => Effect.Effect<number, StorageError>
  }
>() {}
