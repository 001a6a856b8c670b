import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a queued mail message: branded, so that no other kind of id (or plain string) is taken for one. */
export const MailMessageId = IdInput.brand<"MailMessageId">()
export type MailMessageId = z.output<typeof MailMessageId>
