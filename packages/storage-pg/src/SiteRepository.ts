import { Sites } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { pageTable, postTable, siteTable, toPage, toPost, toSite } from "./internal/siteRows.js"
import { uniqueGuard } from "./internal/uniqueGuard.js"
import { json } from "./internal/values.js"

const sites = LiveRecords.liveTable({ table: siteTable, toRecord: toSite, repository: "SiteRepository" })

const pages = LiveRecords.liveTable({ table: pageTable, toRecord: toPage, repository: "SiteRepository" })

const posts = LiveRecords.liveTable({ table: postTable, toRecord: toPost, repository: "SiteRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Sites.SiteRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const siteRows = LiveRecords.make(sql, sites)
  const pageRows = LiveRecords.make(sql, pages)
  const postRows = LiveRecords.make(sql, posts)

  return Sites.SiteRepository.of({
    insertSite: (organisationId, site) =>
      siteRows.insert(
        organisationId,
        site,
        uniqueGuard(
          sql,
          "sites_domain",
          sql<{ id: Sites.SiteId }>`SELECT id FROM sites WHERE organisation_id = ${organisationId}::uuid
            AND domain = ${site.domain} AND archived_at IS NULL`,
          (holder) => Sites.domainTaken(site.domain ?? "", holder)
        )
      ),
    getSite: siteRows.get,
    listSites: (organisationId, page) => siteRows.list(organisationId, {}, page),
    insertPage: (organisationId, page) =>
      pageRows.insert(
        organisationId,
        page,
        uniqueGuard(
          sql,
          "site_pages_path",
          sql<{ id: Sites.PageId }>`SELECT id FROM site_pages WHERE organisation_id = ${organisationId}::uuid
            AND site_id = ${page.site_id}::uuid
            AND path = ${page.path} AND archived_at IS NULL`,
          (holder) => Sites.pathTaken(page.path, holder)
        )
      ),
    listPages: (organisationId, filter, page) =>
      pageRows.list(organisationId, {}, page, [
        ...(filter.siteId !== undefined ? [sql`site_id = ${filter.siteId}::uuid`] : []),
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : [])
      ]),
    insertPost: (organisationId, post) =>
      postRows.insert(
        organisationId,
        post,
        uniqueGuard(
          sql,
          "site_posts_slug",
          sql<{ id: Sites.PostId }>`SELECT id FROM site_posts WHERE organisation_id = ${organisationId}::uuid
            AND site_id = ${post.site_id}::uuid
            AND slug = ${post.slug} AND archived_at IS NULL`,
          (holder) => Sites.slugTaken(post.slug, holder)
        )
      ),
    listPosts: (organisationId, filter, page) =>
      postRows.list(organisationId, {}, page, [
        ...(filter.siteId !== undefined ? [sql`site_id = ${filter.siteId}::uuid`] : []),
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
        ...(filter.tag !== undefined ? [sql`tags @> ${json([filter.tag])}::jsonb`] : [])
      ])
  })
})

export const layer = Layer.effect(Sites.SiteRepository, make)
