import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { CompanyId } from "./CompanyIds.js"
import type { Company } from "./CompanySchemas.js"

export interface CompanyFilter {
  readonly q?: string
  readonly updatedSince?: string
}

/** Live (not archived) companies of one organisation. */
export class CompanyRepository extends Context.Tag("@crm/core/CompanyRepository")<
  CompanyRepository,
  {
    readonly insert: (organisationId: OrganisationId, company: Company) => Effect.Effect<void, StorageError>
    readonly get: (organisationId: OrganisationId, id: CompanyId) => Effect.Effect<Option.Option<Company>, StorageError>
    /** The oldest live company with this domain, compared case-insensitively (a domain is not unique). */
    readonly findByDomain: (
      organisationId: OrganisationId,
      domain: string
    ) => Effect.Effect<Option.Option<Company>, StorageError>
    readonly update: (organisationId: OrganisationId, company: Company) => Effect.Effect<void, StorageError>
    readonly archive: (
      organisationId: OrganisationId,
      id: CompanyId,
      at: string
    ) => Effect.Effect<boolean, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: CompanyFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Company>, StorageError>
    readonly countLive: (organisationId: OrganisationId) => Effect.Effect<number, StorageError>
  }
>() {}
