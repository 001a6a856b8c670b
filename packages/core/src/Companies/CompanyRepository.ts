import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { Page } from "../Wire.js"
import type { Company } from "./CompanySchemas.js"

export interface CompanyFilter {
  readonly q?: string
  readonly updatedSince?: string
}

/** Live (not archived) companies of one organisation. */
export class CompanyRepository extends Context.Tag("@crm/core/CompanyRepository")<
  CompanyRepository,
  {
    readonly insert: (organisationId: string, company: Company) => Effect.Effect<void, StorageError>
    readonly get: (organisationId: string, id: string) => Effect.Effect<Option.Option<Company>, StorageError>
    /** The oldest live company with this domain, compared case-insensitively (a domain is not unique). */
    readonly findByDomain: (
      organisationId: string,
      domain: string
    ) => Effect.Effect<Option.Option<Company>, StorageError>
    readonly update: (organisationId: string, company: Company) => Effect.Effect<void, StorageError>
    readonly archive: (organisationId: string, id: string, at: string) => Effect.Effect<boolean, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: string,
      filter: CompanyFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Company>, StorageError>
    readonly countLive: (organisationId: string) => Effect.Effect<number, StorageError>
  }
>() {}
