import { z } from "zod"
import { KeyId } from "../Access/KeyIds.js"
import { CallId } from "../Calls/CallIds.js"
import { CallDirection, CallLog, CallStatus } from "../Calls/CallSchemas.js"
import { IdInput, PageQuery, pageEnvelope, Timestamp } from "../Wire.js"
import { NoteId } from "./NoteIds.js"

export * from "./NoteIds.js"

/** What a note (and an activity timeline) can be about. */
export const NoteEntityType = z.enum(["contact", "company", "deal", "record"])
export type NoteEntityType = z.infer<typeof NoteEntityType>

export const NoteType = z.enum(["note", "call", "meeting", "email"])
export type NoteType = z.infer<typeof NoteType>

export const MAX_NOTE_BODY = 10_000

/**
 * The call a `call` note logs (provider `manual`). Everything but the direction may be left out:
 * status `completed`, 0 seconds, started now, unknown numbers (the contact's phone on its side).
 */
export const NoteCall = z.strictObject({
  direction: CallDirection.default("outbound").describe("outbound (we called) or inbound; default outbound"),
  status: CallStatus.default("completed").describe(
    "completed (emits call.ended), missed or no_answer (call.missed), busy, failed; default completed"
  ),
  duration_seconds: CallLog.shape.duration_seconds.default(0),
  from_number: CallLog.shape.from_number.optional(),
  to_number: CallLog.shape.to_number.optional(),
  started_at: CallLog.shape.started_at.optional().describe("when the call started; default now")
})

export const NoteCreate = z
  .strictObject({
    entity_type: NoteEntityType,
    entity_id: IdInput.describe("a live contact, company, deal or custom record of the organisation"),
    type: NoteType.default("note").describe("note, call, meeting or email; a call note also logs a call"),
    body: z.string().min(1).max(MAX_NOTE_BODY),
    call: NoteCall.optional().describe("details of the call a `call` note logs; only with type call"),
    pinned: z.boolean().default(false).describe("a pinned note is one to keep in view; default false")
  })
  .refine((input) => input.call === undefined || input.type === "call", {
    message: "only a note of type call logs a call",
    path: ["call"]
  })
export type NoteCreate = z.output<typeof NoteCreate>

export const Note = z.object({
  id: NoteId,
  entity_type: NoteEntityType,
  entity_id: z.uuid(),
  type: NoteType,
  body: z.string(),
  call_id: CallId.nullable().describe("the call a call note logged"),
  author_key_id: KeyId.nullable().describe("the API key that wrote the note"),
  pinned: z.boolean(),
  created_at: Timestamp
})
export type Note = z.infer<typeof Note>
export const NotePage = pageEnvelope(Note)

/** A note's body and kind are its history and stay as written; only its pin moves. */
export const NotePatch = z.strictObject({ pinned: z.boolean().optional() })
export type NotePatch = z.output<typeof NotePatch>

export const NoteListQuery = z.object({
  entity_type: NoteEntityType.optional(),
  entity_id: IdInput.optional().describe("the contact, company, deal or custom record the notes are on"),
  pinned: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .describe("true: only the pinned notes; false: only the others"),
  ...PageQuery
})
export type NoteListQuery = z.output<typeof NoteListQuery>
