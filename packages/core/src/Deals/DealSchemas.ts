import { z } from "zod"
import { KeyId } from "../Access/KeyIds.js"
import { CompanyId } from "../Companies/CompanyIds.js"
import { ContactId } from "../Contacts/ContactIds.js"
import { Amount, amount } from "../Money/Amount.js"
import { Currency } from "../Money/Currency.js"
import { UserId } from "../Organisation/UserIds.js"
import { ArchivedQuery, Custom, PageQuery, pageEnvelope, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { DealId } from "./DealIds.js"
import { PipelineId, StageId } from "./PipelineIds.js"
import { Pipeline, StageKind } from "./PipelineSchemas.js"

export * from "./DealIds.js"

export const DateOnly = z.iso.date().describe("YYYY-MM-DD")

// The stage has its own endpoint, so PATCH refuses the two fields with a pointer to it.
const movedElsewhere = z
  .never({ error: "the stage is not editable here: use POST /deals/{id}/status" })
  .optional()
  .describe("not accepted: use POST /deals/{id}/status")

const fields = {
  title: z.string().min(1).max(500),
  value: amount(z.number().min(0).max(1e15)).nullable().optional().describe("the deal's value in its currency"),
  currency: Currency.optional().describe("ISO 4217; defaults to the organisation's default currency"),
  contact_id: ContactId.nullable().optional(),
  company_id: CompanyId.nullable().optional(),
  owner_id: UserId.nullable().optional().describe("the user who owns the deal"),
  expected_close_date: DateOnly.nullable().optional(),
  custom: Custom.optional()
}

export const DealCreate = z.strictObject({
  ...fields,
  pipeline_id: PipelineId.optional().describe("defaults to the organisation's first pipeline"),
  status_id: StageId.optional().describe("a stage of the pipeline; defaults to its first open stage")
})

export const DealPatch = z.strictObject({
  ...fields,
  title: fields.title.optional(),
  pipeline_id: movedElsewhere,
  status_id: movedElsewhere
})

export const DealStatus = z.strictObject({
  status_id: StageId.describe("a stage of the deal's own pipeline"),
  lost_reason: z.string().max(2000).nullable().optional().describe("kept on the deal; allowed on any stage")
})

/**
 * A move as `Deals.move` takes it from any transport: the target stage by id, as REST's
 * `DealStatus` gives it, or by the name a person uses (exactly one of the two).
 */
export const DealMove = DealStatus.extend({
  status_id: DealStatus.shape.status_id.optional(),
  stage_name: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("the target stage's name instead of status_id (case-insensitive; must name exactly one stage)")
})
export type DealMove = z.output<typeof DealMove>

export const Deal = z.object({
  id: DealId,
  title: z.string(),
  value: Amount.nullable(),
  currency: z.string(),
  pipeline_id: PipelineId,
  status_id: StageId,
  status_kind: StageKind,
  contact_id: ContactId.nullable(),
  company_id: CompanyId.nullable(),
  owner_id: UserId.nullable(),
  expected_close_date: z.string().nullable(),
  lost_reason: z.string().nullable(),
  closed_at: Timestamp.nullable().describe("when the deal entered its won or lost stage; null while open"),
  custom: Custom,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Deal = z.infer<typeof Deal>
export const DealPage = syncPageEnvelope(Deal, { archivable: true })

export const DealListQuery = z.object({
  status_kind: StageKind.optional(),
  contact_id: ContactId.optional(),
  company_id: CompanyId.optional(),
  pipeline_id: PipelineId.optional(),
  ...SyncQuery,
  ...ArchivedQuery,
  ...PageQuery
})
export type DealListQuery = z.output<typeof DealListQuery>

/** One stay of a deal in a stage: what analytics read (time in stage, stalled deals, recent wins). */
export const StageVisit = z.object({
  deal_id: DealId,
  pipeline_id: PipelineId,
  from_status_id: StageId.nullable().describe("the stage the deal came from; null on creation"),
  status_id: StageId,
  status_kind: StageKind,
  entered_at: Timestamp,
  left_at: Timestamp.nullable().describe("null while the deal is still in the stage"),
  key_id: KeyId.nullable().describe("the API key that made the move")
})
export type StageVisit = z.infer<typeof StageVisit>
export const StageHistory = z.object({ data: z.array(StageVisit) })

export const PipelinePage = pageEnvelope(Pipeline)
export const PipelineListQuery = z.object(PageQuery)
