import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { CompanyId } from "../Companies/CompanyIds.js"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { UserId } from "../Organisation/UserIds.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { Page } from "../Wire.js"
import type { DealId } from "./DealIds.js"
import type { Deal, StageVisit } from "./DealSchemas.js"
import type { PipelineId } from "./PipelineIds.js"
import type { StageKind } from "./PipelineSchemas.js"

export interface DealFilter {
  readonly statusKind?: StageKind
  readonly contactId?: ContactId
  readonly companyId?: CompanyId
  readonly pipelineId?: PipelineId
  /** Case-insensitive substring of the title; `%`, `_` and `*` are literal. */
  readonly q?: string
  readonly ownerId?: UserId
  /** Only deals with an `expected_close_date` before this date (`YYYY-MM-DD`); deals without one never match. */
  readonly closeBefore?: string
  /** `created` (the default): newest `created_at` first; `updated`: most recently changed first. Ties by id. */
  readonly order?: "created" | "updated"
}

/** Live (not archived) deals of one organisation and the history of their stages. */
export class DealRepository extends Context.Tag("@crm/core/DealRepository")<
  DealRepository,
  Pick<RecordStore<Deal, DealFilter>, "insert" | "get" | "getForUpdate" | "update" | "archive"> & {
    /** Newest first (or as `filter.order` says), ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: DealFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Deal>, StorageError>
    /** Closes the deal's current visit (its `left_at` becomes `visit.entered_at`) and opens `visit`, atomically. */
    readonly enterStage: (organisationId: OrganisationId, visit: StageVisit) => Effect.Effect<void, StorageError>
    /** The deal's visits, oldest first. */
    readonly history: (
      organisationId: OrganisationId,
      dealId: DealId
    ) => Effect.Effect<ReadonlyArray<StageVisit>, StorageError>
    /** How many live deals stand in each of `stageIds` that any stands in, in no particular order. */
    readonly countByStage: (
      organisationId: OrganisationId,
      stageIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<{ readonly status_id: string; readonly deals: number }>, StorageError>
    /** Analytics: every stage visit of the organisation (archived deals' too), in no particular order. */
    readonly visits: (organisationId: OrganisationId) => Effect.Effect<ReadonlyArray<StageVisit>, StorageError>
    /**
     * Analytics: live deals that are open or whose `closed_at` is at or after `closedSince` (every live deal
     * when it is null), in no particular order.
     */
    readonly openOrClosedSince: (
      organisationId: OrganisationId,
      closedSince: string | null
    ) => Effect.Effect<ReadonlyArray<Deal>, StorageError>
  }
>() {}
