import { Sites } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { type PageRow, type PostRow, type SiteRow, toPage, toPost, toSite } from "./internal/siteRows.js"
import { uniqueGuard } from "./internal/uniqueGuard.js"
import { json } from "./internal/values.js"

const sites: LiveRecords.LiveTable<SiteRow, Sites.Site> = {
  table: "sites",
  columns: "id, name, domain, language, created_at, updated_at",
  toRecord: toSite,
  repository: "SiteRepository"
}

const pages: LiveRecords.LiveTable<PageRow, Sites.Page> = {
  table: "site_pages",
  columns: "id, site_id, path, title, status, sections, published_at, created_at, updated_at",
  toRecord: toPage,
  repository: "SiteRepository"
}

const posts: LiveRecords.LiveTable<PostRow, Sites.Post> = {
  table: "site_posts",
  columns: "id, site_id, slug, title, excerpt, body, status, published_at, tags, created_at, updated_at",
  toRecord: toPost,
  repository: "SiteRepository"
}

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
        sql`${site.id}::uuid, ${site.name}, ${site.domain}, ${site.language}, ${site.created_at}::timestamptz,
          ${site.updated_at}::timestamptz`,
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
        sql`${page.id}::uuid, ${page.site_id}::uuid, ${page.path}, ${page.title}, ${page.status},
          ${json(page.sections)}::jsonb, ${page.published_at}::timestamptz, ${page.created_at}::timestamptz,
          ${page.updated_at}::timestamptz`,
        uniqueGuard(
          sql,
          "site_pages_path",
          sql<{ id: Sites.PageId }>`SELECT id FROM site_pages WHERE site_id = ${page.site_id}::uuid
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
        sql`${post.id}::uuid, ${post.site_id}::uuid, ${post.slug}, ${post.title}, ${post.excerpt}, ${post.body},
          ${post.status}, ${post.published_at}::timestamptz, ${json(post.tags)}::jsonb,
          ${post.created_at}::timestamptz, ${post.updated_at}::timestamptz`,
        uniqueGuard(
          sql,
          "site_posts_slug",
          sql<{ id: Sites.PostId }>`SELECT id FROM site_posts WHERE site_id = ${post.site_id}::uuid
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
