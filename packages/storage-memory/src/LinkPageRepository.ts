/** Link-in-bio pages in memory; slugs kept unique per organisation through the `siteKeys` index. */
import { type Errors, LinkPages } from "@crm/core"
import type * as Context from "effect/Context"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"
import { uniqueKey } from "./internal/uniqueKeys.js"

const linkPages = LiveRecords.table<LinkPages.LinkPage>("link_pages")

export const make = (store: Store): Context.Tag.Service<typeof LinkPages.LinkPageRepository> => {
  const live = LiveRecords.make<LinkPages.LinkPage, Errors.SlugAlreadyExists>(store, {
    table: linkPages,
    noun: "link page",
    onWrite: uniqueKey(
      (page) => `link:${page.slug}`,
      (holder, page) => LinkPages.slugTaken(page.slug, holder)
    )
  })
  return LinkPages.LinkPageRepository.of({
    insert: live.insert,
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, (row) => filter.status === undefined || row.status === filter.status)
  })
}
