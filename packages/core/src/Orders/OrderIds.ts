import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of an order: branded, so that no other kind of id (or plain string) is taken for one. */
export const OrderId = IdInput.brand<"OrderId">()
export type OrderId = z.output<typeof OrderId>
