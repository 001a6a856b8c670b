import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a ticket: branded, so that no other kind of id (or plain string) is taken for one. */
export const TicketId = IdInput.brand<"TicketId">()
export type TicketId = z.output<typeof TicketId>
