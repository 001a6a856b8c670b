/** The webhook subscription and delivery tables, each declared once, and their records. */
import { type Access, Events, type Organisation, Webhooks } from "@crm/core"
import {
  boolean,
  integer,
  literal,
  literals,
  nullable,
  type RowOfTable,
  table,
  text,
  timestamp,
  uuid
} from "./columns.js"
import { decimal, iso, jsonOf } from "./storedValues.js"

export const hookTable = table("webhook_hooks", {
  id: uuid<Webhooks.HookId>(),
  organisation_id: uuid<Organisation.OrganisationId>(),
  key_id: uuid<Access.KeyId>(),
  target_url: text(),
  // Written only from names the service checked against the catalogue: one it no longer knows is a fault.
  events: literals(Events.EventEnvelope.shape.event),
  active: boolean(),
  disabled_reason: nullable(text()),
  secret: text(),
  previous_secret: nullable(text()),
  previous_secret_expires_at: nullable(timestamp()),
  failing_since: nullable(timestamp()),
  unanswered_attempts: integer(),
  paused_until: nullable(timestamp()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type HookRow = RowOfTable<typeof hookTable>
export const toHook = (row: HookRow): Webhooks.HookRecord => hookTable.read(row)

/** What a hook's own settings and circuit change; never its key, owner or creation time. */
export const HOOK_KEPT = ["id", "organisation_id", "key_id", "created_at"]

/** A delivery's own columns; its attempts come folded in beside them (`attempts`, JSON, oldest first). */
export const deliveryTable = table("webhook_deliveries", {
  id: uuid<Webhooks.DeliveryId>(),
  hook_id: uuid<Webhooks.HookId>(),
  event_id: () => ({ cast: "::bigint", readAs: undefined, read: decimal, write: decimal }),
  event: literal(Webhooks.Delivery.shape.event),
  status: literal(Webhooks.DeliveryStatus),
  attempt_count: integer(),
  next_attempt_at: nullable(timestamp()),
  created_at: timestamp()
})
export type DeliveryRow = RowOfTable<typeof deliveryTable> & { readonly attempts: unknown }

const attemptsOf = jsonOf("attempts", Webhooks.Delivery.shape.attempts)

export const toDelivery = (row: DeliveryRow): Webhooks.Delivery => ({
  ...deliveryTable.read(row),
  attempts: attemptsOf(row.attempts).map((attempt) => ({ ...attempt, attempted_at: iso(attempt.attempted_at) }))
})
