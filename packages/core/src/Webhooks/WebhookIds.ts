import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a webhook subscription: branded, so that no other kind of id (or plain string) is taken for one. */
export const HookId = IdInput.brand<"HookId">()
export type HookId = z.output<typeof HookId>

/** The id of a webhook delivery: branded, so that no other kind of id (or plain string) is taken for one. */
export const DeliveryId = IdInput.brand<"DeliveryId">()
export type DeliveryId = z.output<typeof DeliveryId>
