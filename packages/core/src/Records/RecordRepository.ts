import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { CompanyId } from "../Companies/CompanyIds.js"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { DealId } from "../Deals/DealIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { RecordTypeId } from "./RecordIds.js"
import type { CustomRecord } from "./RecordSchemas.js"

export interface RecordFilter {
  readonly typeId?: RecordTypeId
  readonly contactId?: ContactId
  readonly companyId?: CompanyId
  readonly dealId?: DealId
  /** Case-insensitive substring of the title. */
  readonly q?: string
}

/** Custom records of one organisation, as stored: `custom` holds set values only, never computed ones. */
export class RecordRepository extends Context.Tag("@crm/core/RecordRepository")<
  RecordRepository,
  Pick<RecordStore<CustomRecord, RecordFilter>, "insert" | "get" | "getForUpdate" | "update" | "list"> & {
    /** The records among `ids` that exist, in no particular order. */
    readonly getMany: (
      organisationId: OrganisationId,
      ids: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<CustomRecord>, StorageError>
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
  }
>() {}
