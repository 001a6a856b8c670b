/**
 * The outbox rule: which subscriptions an appended event is delivered to. It is the one rule every
 * store's `EventLog.append` keeps when it writes the outbox: the memory store calls it, the
 * PostgreSQL store states it in the WHERE of the statement that appends the events (so it costs no
 * statement of its own), and the webhook storage contract checks every store against it.
 */
import type { EventName } from "../Events/EventCatalogue.js"
import type { HookRecord } from "./WebhookRepository.js"

/**
 * Whether `hook` gets a delivery of `event`: it is active, its key is live (a revoked key's
 * integration has been cut off), and it subscribed to that very event name (no patterns).
 */
export const receives = (hook: Pick<HookRecord, "active" | "events">, keyLive: boolean, event: EventName): boolean =>
  keyLive && hook.active && hook.events.includes(event)
