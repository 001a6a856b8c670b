import { z } from "zod"
import { Timestamp } from "../Wire.js"
import { EVENT_NAMES } from "./EventCatalogue.js"

export const EventEnvelope = z.object({
  id: z.string().describe("numeric cursor, as a string"),
  event: z.enum(EVENT_NAMES),
  data: z.record(z.string(), z.unknown()),
  created_at: Timestamp
})
export type EventEnvelope = z.infer<typeof EventEnvelope>

export const EVENTS_DEFAULT_LIMIT = 100
export const EVENTS_MAX_LIMIT = 500

/** `since` and `event` are checked by the service (their errors are 400 `invalid_parameter`, not 422). */
export const EventsQuery = z.object({
  since: z
    .string()
    .optional()
    .describe("cursor: the `next_cursor` of the previous page; 0 or absent for the oldest kept event"),
  event: z.string().optional().describe("only events with this catalogue name"),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(EVENTS_MAX_LIMIT)
    .default(EVENTS_DEFAULT_LIMIT)
    .describe(`page size, 1..${EVENTS_MAX_LIMIT}, default ${EVENTS_DEFAULT_LIMIT}`)
})

export const EventPage = z.object({
  data: z.array(EventEnvelope),
  next_cursor: z.string(),
  has_more: z.boolean()
})
export type EventPage = z.infer<typeof EventPage>
