import { z } from "zod"
import { EVENT_NAMES } from "../Events/EventCatalogue.js"
import { PageQuery, pageEnvelope, Timestamp } from "../Wire.js"
import { DeliveryId, HookId } from "./WebhookIds.js"

export * from "./WebhookIds.js"

/** `events` is checked against the catalogue by the service: an unknown name is 404 `unknown_event`, not 422. */
export const HookCreate = z.strictObject({
  target_url: z.string().min(1).max(2048).describe("public http(s) URL; https when the CRM is served over https"),
  events: z.array(z.string().min(1).max(100)).min(1).max(EVENT_NAMES.length).describe("event names of the catalogue")
})
export type HookCreate = z.infer<typeof HookCreate>

export const Hook = z.object({
  id: HookId,
  target_url: z.string(),
  events: z.array(z.enum(EVENT_NAMES)),
  active: z.boolean(),
  disabled_reason: z.string().nullable().describe("why deliveries stopped (410 Gone, five days of failures)"),
  paused_until: Timestamp.nullable().describe(
    "set while the target has given no answer (timeout, connection error) to several attempts running: none of the hook's deliveries is attempted before then; null while it answers"
  ),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Hook = z.infer<typeof Hook>
export const HookPage = pageEnvelope(Hook)

/**
 * `enabled` is another name for `active`, the field as a hook is read. Enabling a disabled hook
 * re-queues nothing: what failed when it was disabled stays failed, new events are delivered.
 */
export const HookPatch = z
  .strictObject({
    active: z.boolean().optional().describe("false stops deliveries (pending ones fail); true starts them again"),
    enabled: z.boolean().optional().describe("the same as active")
  })
  .refine((patch) => patch.active === undefined || patch.enabled === undefined || patch.active === patch.enabled, {
    message: "active and enabled name the same setting and must agree",
    path: ["enabled"]
  })
export type HookPatch = z.infer<typeof HookPatch>

export const HookWithSecret = Hook.extend({
  secret: z.string().describe("whsec_...: the HMAC key (its UTF-8 bytes); shown only in this answer"),
  previous_secret_expires_at: Timestamp.nullable().describe(
    "until when the secret replaced by a rotation still signs deliveries too"
  )
})
export type HookWithSecret = z.infer<typeof HookWithSecret>

export const DeliveryStatus = z.enum(["pending", "succeeded", "failed"])
export type DeliveryStatus = z.infer<typeof DeliveryStatus>

export const DeliveryAttempt = z.object({
  attempted_at: Timestamp,
  status_code: z.number().int().nullable().describe("the target's HTTP status; null when no answer came"),
  duration_ms: z.number().int(),
  response_excerpt: z.string().nullable().describe("the first KiB of the answer's body"),
  error: z.string().nullable().describe("why no answer came: timeout, refused address, connection error")
})
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>

export const Delivery = z.object({
  id: DeliveryId,
  hook_id: HookId,
  event_id: z.string().describe("the event's id (its cursor), also sent as X-Service-Event-Id"),
  event: z.enum(EVENT_NAMES),
  status: DeliveryStatus,
  attempt_count: z.number().int(),
  next_attempt_at: Timestamp.nullable().describe("when the next attempt is due; null unless pending"),
  created_at: Timestamp,
  attempts: z.array(DeliveryAttempt).describe("oldest first")
})
export type Delivery = z.infer<typeof Delivery>
export const DeliveryPage = pageEnvelope(Delivery)

export const HookListQuery = z.object({ ...PageQuery })
export type HookListQuery = z.output<typeof HookListQuery>
