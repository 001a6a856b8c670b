import { z } from "zod"
import { PageQuery, pageEnvelope, Timestamp } from "../Wire.js"
import { MailMessageId } from "./MailIds.js"

export * from "./MailIds.js"

export const MailStatus = z.enum(["queued", "sent", "failed"])
export type MailStatus = z.infer<typeof MailStatus>

/** What a business operation hands the Mailer; the sender address is the deployment's. */
export interface OutgoingMail {
  readonly to: string
  readonly subject: string
  readonly body: string
}

export const MailMessage = z.object({
  id: MailMessageId,
  to: z.string(),
  subject: z.string(),
  body: z.string().describe("plain text"),
  status: MailStatus.describe("queued until sent; failed once every attempt has failed"),
  attempts: z.number().int().describe("sending attempts so far"),
  last_error: z.string().nullable().describe("why the last attempt failed"),
  next_attempt_at: Timestamp.nullable().describe("when a queued message is tried (again); null once sent or failed"),
  created_at: Timestamp,
  sent_at: Timestamp.nullable()
})
export type MailMessage = z.infer<typeof MailMessage>
export const MailPage = pageEnvelope(MailMessage)

export const MailListQuery = z.object({ status: MailStatus.optional(), ...PageQuery })
export type MailListQuery = z.output<typeof MailListQuery>
