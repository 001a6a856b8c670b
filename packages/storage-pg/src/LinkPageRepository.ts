import { LinkPages } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { linkPageTable, toLinkPage } from "./internal/siteRows.js"
import { uniqueGuard } from "./internal/uniqueGuard.js"

const linkPages = LiveRecords.liveTable({
  table: linkPageTable,
  toRecord: toLinkPage,
  repository: "LinkPageRepository"
})

export const make: Effect.Effect<
  Context.Tag.Service<typeof LinkPages.LinkPageRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, linkPages)
  return LinkPages.LinkPageRepository.of({
    insert: (organisationId, page) =>
      live.insert(
        organisationId,
        page,
        uniqueGuard(
          sql,
          "link_pages_slug",
          sql<{ id: string }>`SELECT id FROM link_pages WHERE organisation_id = ${organisationId}::uuid
            AND slug = ${page.slug} AND archived_at IS NULL`,
          (holder) => LinkPages.slugTaken(page.slug, holder)
        )
      ),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, filter.status !== undefined ? [sql`status = ${filter.status}`] : [])
  })
})

export const layer = Layer.effect(LinkPages.LinkPageRepository, make)
