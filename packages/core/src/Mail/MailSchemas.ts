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
  /**
   * The body holds a one-time link (sign-in, password reset, invitation): it is sent, but the
   * outbox lists it withheld: whoever reads the outbox (the operator's mail listing) must not be able
   * to take over the account the link signs in to.
   */
  readonly sensitive?: boolean
}

/** The body the outbox lists in place of a withheld one. */
export const WITHHELD_BODY = "(withheld: holds a one-time link)"

export const MailMessage = z.object({
  id: MailMessageId,
  to: z.string(),
  subject: z.string(),
  body: z.string().describe(`plain text; "${WITHHELD_BODY}" when withheld`),
  withheld: z
    .boolean()
    .describe("the body holds a one-time link (sign-in, password reset, invitation): it is sent but not shown here"),
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
