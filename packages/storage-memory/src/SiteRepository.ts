/** Sites, pages and posts in memory; domains, paths and slugs kept unique through the `siteKeys` index. */
import { type Errors, Sites } from "@crm/core"
import type * as Context from "effect/Context"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"
import { uniqueKey } from "./internal/uniqueKeys.js"

const siteRows = LiveRecords.table<Sites.Site>("sites")
const sitePages = LiveRecords.table<Sites.Page>("site_pages")
const sitePosts = LiveRecords.table<Sites.Post>("site_posts")

export const make = (store: Store): Context.Tag.Service<typeof Sites.SiteRepository> => {
  const sites = LiveRecords.make<Sites.Site, Errors.DomainAlreadyExists>(store, {
    table: siteRows,
    noun: "site",
    onWrite: uniqueKey(
      (site) => (site.domain === null ? null : `domain:${site.domain}`),
      (holder, site) => Sites.domainTaken(site.domain ?? "", holder)
    )
  })
  const pages = LiveRecords.make<Sites.Page, Errors.PathAlreadyExists>(store, {
    table: sitePages,
    noun: "site page",
    onWrite: uniqueKey(
      (page) => `path:${page.site_id}:${page.path}`,
      (holder, page) => Sites.pathTaken(page.path, holder)
    )
  })
  const posts = LiveRecords.make<Sites.Post, Errors.SlugAlreadyExists>(store, {
    table: sitePosts,
    noun: "site post",
    onWrite: uniqueKey(
      (post) => `slug:${post.site_id}:${post.slug}`,
      (holder, post) => Sites.slugTaken(post.slug, holder)
    )
  })
  return Sites.SiteRepository.of({
    insertSite: sites.insert,
    getSite: sites.get,
    listSites: (organisationId, page) => sites.list(organisationId, {}, page),
    insertPage: pages.insert,
    listPages: (organisationId, filter, page) =>
      pages.list(
        organisationId,
        {},
        page,
        (row) =>
          (filter.siteId === undefined || row.site_id === filter.siteId) &&
          (filter.status === undefined || row.status === filter.status)
      ),
    insertPost: posts.insert,
    listPosts: (organisationId, filter, page) =>
      posts.list(
        organisationId,
        {},
        page,
        (row) =>
          (filter.siteId === undefined || row.site_id === filter.siteId) &&
          (filter.status === undefined || row.status === filter.status) &&
          (filter.tag === undefined || row.tags.includes(filter.tag))
      )
  })
}
