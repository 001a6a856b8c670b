/** Link-in-bio pages: a slug, a title and a list of links. No catalogue events. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import type { SlugAlreadyExists, StorageError } from "./Errors.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { nowIso } from "./internal/records.js"
import { LinkPageId } from "./LinkPages/LinkPageIds.js"
import { LinkPageRepository } from "./LinkPages/LinkPageRepository.js"
import type { LinkPage, LinkPageCreate, LinkPageListQuery } from "./LinkPages/LinkPageSchemas.js"
import type { Organisation } from "./Organisation.js"
import { Transaction } from "./Transaction.js"
import { type PageResult, toPage } from "./Wire.js"

export * from "./LinkPages/LinkPageRepository.js"
export * from "./LinkPages/LinkPageSchemas.js"

export class LinkPages extends Context.Tag("@crm/core/LinkPages")<
  LinkPages,
  {
    /** A slug the organisation already uses is refused (409 `slug_already_exists`, `{slug, link_page_id}`). */
    readonly create: (
      organisation: Organisation,
      input: z.output<typeof LinkPageCreate>
    ) => Effect.Effect<LinkPage, SlugAlreadyExists | StorageError>
    readonly list: (
      organisation: Organisation,
      query: LinkPageListQuery
    ) => Effect.Effect<PageResult<LinkPage>, StorageError>
  }
>() {}

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* LinkPageRepository
  const tx = yield* Transaction
  return LinkPages.of({
    create: operation("LinkPages.create")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const now = yield* nowIso
          const page: LinkPage = {
            id: brand(LinkPageId, ids.next()),
            slug: input.slug,
            title: input.title,
            description: input.description ?? null,
            links: input.links,
            status: input.status,
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, page)
          return page
        })
      )
    }),
    list: (organisation, query) =>
      Effect.map(
        repo.list(organisation.id, query.status !== undefined ? { status: query.status } : {}, query),
        (rows) => toPage(rows, query)
      )
  })
})

export const layer = Layer.effect(LinkPages, make)
