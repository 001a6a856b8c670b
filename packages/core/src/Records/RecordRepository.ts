import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { CompanyId } from "../Companies/CompanyIds.js"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { DealId } from "../Deals/DealIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { RecordId } from "./RecordIds.js"
import type { CustomRecord } from "./RecordSchemas.js"

export interface RecordFilter {
  readonly typeId?: string
  readonly contactId?: ContactId
  readonly companyId?: CompanyId
  readonly dealId?: DealId
  /** Case-insensitive substring of the title. */
  readonly q?: string
}

/** Custom records of one organisation, as stored: `custom` holds set values only, never computed ones. */
export class RecordRepository extends Context.Tag("@crm/core/RecordRepository")<
  RecordRepository,
  {
    readonly insert: (organisationId: OrganisationId, record: CustomRecord) => Effect.Effect<void, StorageError>
    readonly get: (
      organisationId: OrganisationId,
      id: RecordId
    ) => Effect.Effect<Option.Option<CustomRecord>, StorageError>
    /** Like `get`, and no other unit of work changes the record until the calling one ends. */
    readonly getForUpdate: (
      organisationId: OrganisationId,
      id: RecordId
    ) => Effect.Effect<Option.Option<CustomRecord>, StorageError>
    /** The records among `ids` that exist, in no particular order. */
    readonly getMany: (
      organisationId: OrganisationId,
      ids: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<CustomRecord>, StorageError>
    readonly update: (organisationId: OrganisationId, record: CustomRecord) => Effect.Effect<void, StorageError>
    /**
     * For each `{type_id, field}` that any live record of that type holds a value for (a key of its
     * stored `custom`), how many such records there are; in no particular order.
     */
    readonly countHolding: (
      organisationId: OrganisationId,
      fields: ReadonlyArray<{ readonly type_id: string; readonly field: string }>
    ) => Effect.Effect<
      ReadonlyArray<{ readonly type_id: string; readonly field: string; readonly records: number }>,
      StorageError
    >
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: RecordFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<CustomRecord>, StorageError>
  }
>() {}
