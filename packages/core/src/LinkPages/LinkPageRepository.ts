import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import { SlugAlreadyExists, type StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { PublicationStatus } from "../Sites/SiteSchemas.js"
import type { Page } from "../Wire.js"
import type { LinkPage } from "./LinkPageSchemas.js"

export interface LinkPageFilter {
  readonly status?: PublicationStatus
}

/** The link-in-bio pages of one organisation; a slug is unique within it, also when two inserts race. */
export class LinkPageRepository extends Context.Tag("@crm/core/LinkPageRepository")<
  LinkPageRepository,
  {
    readonly insert: (
      organisationId: OrganisationId,
      page: LinkPage
    ) => Effect.Effect<void, SlugAlreadyExists | StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: LinkPageFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<LinkPage>, StorageError>
  }
>() {}

export const slugTaken = (slug: string, linkPageId: string | null) =>
  new SlugAlreadyExists({ detail: { slug, link_page_id: linkPageId } })
