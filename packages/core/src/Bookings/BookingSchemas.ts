import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { EmailInput, PageQuery, pageEnvelope, Timestamp, TimestampInput } from "../Wire.js"
import { BookingId, SeriesId } from "./BookingIds.js"

export * from "./BookingIds.js"

export const BookingStatus = z.enum(["pending", "confirmed", "cancelled", "completed", "no_show"])
export type BookingStatus = z.infer<typeof BookingStatus>

export const QuestionKey = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, "must be lower-case letters, digits and _ starting with a letter")

export const Question = z.strictObject({
  key: QuestionKey.describe("the key the answer is stored under"),
  label: z.string().trim().min(1).max(300).describe("the question as the visitor reads it"),
  required: z.boolean().default(false)
})
export type Question = z.output<typeof Question>

export const SeriesCreate = z.strictObject({
  name: z.string().trim().min(1).max(200).describe("what is booked, e.g. Intro call or Saturday yoga"),
  duration_minutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .describe("how long one booking lasts"),
  location: z.string().trim().max(500).nullable().optional().describe("an address or a meeting link"),
  questions: z
    .array(Question)
    .max(50)
    .default([])
    .superRefine((questions, ctx) => {
      const seen = new Set<string>()
      questions.forEach((question, index) => {
        if (seen.has(question.key))
          ctx.addIssue({ code: "custom", path: [index, "key"], message: `question ${question.key} is defined twice` })
        seen.add(question.key)
      })
    })
    .describe("what the person booking is asked")
})

export const Series = z.object({
  id: SeriesId,
  name: z.string(),
  duration_minutes: z.number().int(),
  location: z.string().nullable(),
  questions: z.array(z.object({ key: z.string(), label: z.string(), required: z.boolean() })),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Series = z.infer<typeof Series>
export const SeriesPage = pageEnvelope(Series)

export const Answer = z.union([z.string().max(5000), z.number(), z.boolean()])
export type Answer = z.infer<typeof Answer>

export const BookingCreate = z.strictObject({
  series_id: SeriesId.nullable().optional().describe("the booking series booked; null for a one-off booking"),
  series_seq: z
    .number()
    .int()
    .min(1)
    .nullable()
    .optional()
    .describe("which occurrence of the series (1 = the first); only with series_id"),
  contact_id: ContactId.nullable().optional().describe("a contact of the organisation the booking belongs to"),
  name: z.string().trim().min(1).max(200).describe("who booked"),
  email: EmailInput,
  starts_at: TimestampInput,
  ends_at: TimestampInput.optional().describe("default starts_at plus the series' duration; required without a series"),
  status: BookingStatus.default("confirmed"),
  answers: z.record(z.string(), Answer).default({}).describe("answers to the series' questions, by question key")
})

export const Booking = z.object({
  id: BookingId,
  series_id: SeriesId.nullable(),
  series_seq: z.number().int().nullable(),
  contact_id: ContactId.nullable(),
  name: z.string(),
  email: z.string(),
  starts_at: Timestamp,
  ends_at: Timestamp,
  status: BookingStatus,
  answers: z.record(z.string(), Answer),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Booking = z.infer<typeof Booking>
export const BookingPage = pageEnvelope(Booking)

export const BookingListQuery = z.object({
  upcoming: z
    .union([z.boolean(), z.enum(["true", "false"]).transform((value) => value === "true")])
    .optional()
    .describe(
      "true: only bookings starting now or later, soonest first; false: only those that started before now, latest first; omitted: all, newest created first"
    ),
  status: BookingStatus.optional(),
  series_id: SeriesId.optional().describe("only bookings of this series"),
  series_seq: z.coerce.number().int().min(1).optional().describe("only this occurrence of the series"),
  contact_id: ContactId.optional().describe("only bookings of this contact"),
  ...PageQuery
})
export type BookingListQuery = z.output<typeof BookingListQuery>

export const SeriesListQuery = z.object({ ...PageQuery })
export type SeriesListQuery = z.output<typeof SeriesListQuery>

export const BookingStatusChange = z.strictObject({ status: BookingStatus })
