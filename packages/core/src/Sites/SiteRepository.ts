import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import { DomainAlreadyExists, PathAlreadyExists, SlugAlreadyExists, type StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { Page as WirePage } from "../Wire.js"
import type { SiteId } from "./SiteIds.js"
import type { Page, Post, PublicationStatus, Site } from "./SiteSchemas.js"

export interface PageFilter {
  readonly siteId?: SiteId
  readonly status?: PublicationStatus
}

export interface PostFilter {
  readonly siteId?: SiteId
  readonly status?: PublicationStatus
  /** Posts whose `tags` contain this one (tags are stored lower-case). */
  readonly tag?: string
}

/**
 * The sites of one organisation with their pages and posts. The uniqueness rules (a domain per
 * organisation, a path or a slug per site) are the store's: an insert breaking one fails with the
 * conflict naming the record that holds the value, even when two inserts race.
 */
export class SiteRepository extends Context.Tag("@crm/core/SiteRepository")<
  SiteRepository,
  {
    readonly insertSite: RecordStore<Site, never, DomainAlreadyExists>["insert"]
    readonly getSite: RecordStore<Site, never>["get"]
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly listSites: (
      organisationId: OrganisationId,
      page: WirePage
    ) => Effect.Effect<ReadonlyArray<Site>, StorageError>
    readonly insertPage: RecordStore<Page, PageFilter, PathAlreadyExists>["insert"]
    readonly listPages: RecordStore<Page, PageFilter>["list"]
    readonly insertPost: RecordStore<Post, PostFilter, SlugAlreadyExists>["insert"]
    readonly listPosts: RecordStore<Post, PostFilter>["list"]
  }
>() {}

/** The conflicts as every adapter reports them: the value and the record holding it (null if unseen). */
export const domainTaken = (domain: string, siteId: string | null) =>
  new DomainAlreadyExists({ detail: { domain, site_id: siteId } })
export const pathTaken = (path: string, pageId: string | null) =>
  new PathAlreadyExists({ detail: { path, page_id: pageId } })
export const slugTaken = (slug: string, postId: string | null) =>
  new SlugAlreadyExists({ detail: { slug, post_id: postId } })
