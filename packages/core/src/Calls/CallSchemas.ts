import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { PageQuery, pageEnvelope, Timestamp, TimestampInput } from "../Wire.js"
import { CallId } from "./CallIds.js"

export * from "./CallIds.js"

export const CallDirection = z.enum(["inbound", "outbound"])
export type CallDirection = z.infer<typeof CallDirection>
export const CallStatus = z.enum(["completed", "missed", "busy", "failed", "no_answer"])
export type CallStatus = z.infer<typeof CallStatus>

const phone = z.string().min(1).max(50)

export const CallLog = z.strictObject({
  provider: z.string().min(1).max(100).describe("the telephony provider, or `manual` for a call logged by hand"),
  external_id: z.string().min(1).max(200).nullable().optional().describe("the provider's id of the call"),
  direction: CallDirection,
  status: CallStatus,
  duration_seconds: z
    .number()
    .int()
    .min(0)
    .max(31 * 86_400)
    .describe("talk time in whole seconds"),
  from_number: phone,
  to_number: phone,
  contact_id: ContactId.nullable().optional().describe("a live contact of the organisation"),
  recording_url: z.url().max(2000).nullable().optional(),
  started_at: TimestampInput
})

export const CallTranscription = z.strictObject({
  transcript: z.string().min(1).max(1_000_000),
  summary: z.string().max(10_000).nullable().optional()
})

export const Call = z.object({
  id: CallId,
  provider: z.string(),
  external_id: z.string().nullable(),
  direction: CallDirection,
  status: CallStatus,
  duration_seconds: z.number().int(),
  from_number: z.string(),
  to_number: z.string(),
  contact_id: ContactId.nullable(),
  recording_url: z.string().nullable(),
  started_at: Timestamp,
  transcript: z.string().nullable(),
  summary: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Call = z.infer<typeof Call>
export const CallPage = pageEnvelope(Call)

export const CallListQuery = z.object({
  contact_id: ContactId.optional(),
  direction: CallDirection.optional(),
  status: CallStatus.optional(),
  ...PageQuery
})
export type CallListQuery = z.output<typeof CallListQuery>
