/** Wire shapes of a test-mode organisation's clock (the admin API's `/organisations/{id}/clock`). */
import { z } from "zod"
import { OrganisationId } from "../Organisation.js"
import { Timestamp, TimestampInput } from "../Wire.js"

const onlyOne = (body: { frozen_at?: unknown; advance_by?: unknown }) =>
  (body.frozen_at === undefined) !== (body.advance_by === undefined)

export const ClockChange = z
  .strictObject({
    frozen_at: TimestampInput.optional().describe(
      "freeze the clock at this instant; a frozen clock only moves forward (an earlier instant is 422)"
    ),
    advance_by: z
      .string()
      .max(64)
      .optional()
      .describe(
        "an ISO 8601 duration (P3D, PT2H, P1M, P1W): moves the business time forward from where it stands (from the real time when it is not frozen) and freezes it there; at most 100 years"
      )
  })
  .refine(onlyOne, { message: "send exactly one of frozen_at or advance_by", path: ["frozen_at"] })
export type ClockChange = z.output<typeof ClockChange>

export const ClockState = z.object({
  organisation_id: OrganisationId,
  test_mode: z.literal(true),
  frozen_at: Timestamp.nullable().describe("where the frozen clock stands; null: real time"),
  now: Timestamp.describe("the organisation's business time as of this answer"),
  jobs: z
    .object({
      quotes_expired: z.number().int().describe("sent quotes this change expired"),
      invoices_overdue: z.number().int().describe("invoices this change made overdue")
    })
    .describe("what the date jobs that fell due did for this organisation, run in this request")
})
export type ClockState = z.infer<typeof ClockState>
