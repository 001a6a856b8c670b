import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { Company } from "./CompanySchemas.js"

export interface CompanyFilter {
  readonly q?: string
  readonly updatedSince?: string
}

/** Live (not archived) companies of one organisation. */
export class CompanyRepository extends Context.Tag("@crm/core/CompanyRepository")<
  CompanyRepository,
  Pick<RecordStore<Company, CompanyFilter>, "insert" | "get" | "update" | "archive" | "list"> & {
    /** The oldest live company with this domain, compared case-insensitively (a domain is not unique). */
    readonly findByDomain: (
      organisationId: OrganisationId,
      domain: string
    ) => Effect.Effect<Option.Option<Company>, StorageError>
    readonly countLive: (organisationId: OrganisationId) => Effect.Effect<number, StorageError>
  }
>() {}
