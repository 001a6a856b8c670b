import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { TaskPriority } from "../Tasks/TaskSchemas.js"
import { IdInput, PageQuery, SyncQuery, syncPageEnvelope, Timestamp, TimestampInput } from "../Wire.js"
import { TicketId } from "./TicketIds.js"

export * from "./TicketIds.js"

export const TicketStatus = z.enum(["open", "pending", "solved", "closed"])
export type TicketStatus = z.infer<typeof TicketStatus>
/** The same four levels as tasks, so one word means one urgency across the CRM. */
export const TicketPriority = TaskPriority
export type TicketPriority = z.infer<typeof TicketPriority>
export const TicketChannel = z.enum(["email", "portal", "manual", "chat"])
export type TicketChannel = z.infer<typeof TicketChannel>

const subject = z.string().min(1).max(500)
const slaDueAt = TimestampInput.nullable()
  .optional()
  .describe("when the ticket must be solved; default from the priority's SLA target, null for no target")

export const TicketCreate = z.strictObject({
  subject,
  description: z.string().max(100_000).nullable().optional().describe("the customer's first message"),
  status: TicketStatus.optional().describe("default open"),
  priority: TicketPriority.optional().describe("default normal"),
  channel: TicketChannel.optional().describe("where the ticket came from; default manual"),
  contact_id: ContactId.nullable().optional().describe("a live contact of the organisation"),
  requester_email: z
    .email()
    .max(320)
    .optional()
    .describe("the address replies go to; default the contact's email, and one of the two is needed"),
  assigned_to: IdInput.nullable().optional().describe("the user working on the ticket"),
  sla_due_at: slaDueAt
})

export const TicketPatch = z.strictObject({
  subject: subject.optional(),
  status: TicketStatus.optional().describe("moves along the ticket status machine"),
  priority: TicketPriority.optional().describe("re-derives sla_due_at from the new priority unless sla_due_at is sent"),
  assigned_to: IdInput.nullable().optional(),
  sla_due_at: slaDueAt
})

/** An answer to the requester: mailed to `requester_email`. */
export const TicketReply = z.strictObject({
  body: z.string().min(1).max(20_000).describe("the answer, plain text, mailed to the requester")
})
export type TicketReply = z.output<typeof TicketReply>

/** A ticket as stored: everything but `breached`, which depends on the moment it is read. */
export const TicketRecord = z.object({
  id: TicketId,
  number: z.string(),
  subject: z.string(),
  description: z.string().nullable(),
  status: TicketStatus,
  priority: TicketPriority,
  channel: TicketChannel,
  contact_id: ContactId.nullable(),
  requester_email: z.string(),
  assigned_to: z.uuid().nullable(),
  sla_due_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type TicketRecord = z.infer<typeof TicketRecord>

export const Ticket = TicketRecord.extend({
  breached: z.boolean().describe("sla_due_at has passed while the ticket is neither solved nor closed")
})
export type Ticket = z.infer<typeof Ticket>
export const TicketPage = syncPageEnvelope(Ticket, { archivable: false })

export const TicketListQuery = z.object({
  status: TicketStatus.optional(),
  channel: TicketChannel.optional(),
  contact_id: ContactId.optional(),
  breached: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional(),
  ...SyncQuery,
  ...PageQuery
})
export type TicketListQuery = z.output<typeof TicketListQuery>
