/**
 * Websites: sites, their pages (made of sections from the built-in catalogue) and their blog posts.
 * The catalogue has no site events, so no operation here emits one.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { SeriesId } from "./Bookings/BookingIds.js"
import { BookingRepository } from "./Bookings/BookingRepository.js"
import {
  type DomainAlreadyExists,
  type PathAlreadyExists,
  type SlugAlreadyExists,
  type StorageError,
  ValidationFailed,
  type ValidationIssue
} from "./Errors.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { linked, nowIso } from "./internal/records.js"
import type { Organisation } from "./Organisation.js"
import * as SectionTypes from "./Sites/SectionTypes.js"
import { PageId, PostId, SiteId } from "./Sites/SiteIds.js"
import { SiteRepository } from "./Sites/SiteRepository.js"
import type {
  Page,
  PageCreate,
  PageListQuery,
  Post,
  PostCreate,
  PostListQuery,
  Site,
  SiteCreate,
  SiteListQuery
} from "./Sites/SiteSchemas.js"
import { Transaction } from "./Transaction.js"
import { type PageResult, toPage } from "./Wire.js"

export * as PagePath from "./Sites/PagePath.js"
export * as SectionTypes from "./Sites/SectionTypes.js"
export * from "./Sites/SiteRepository.js"
export * from "./Sites/SiteSchemas.js"

export class Sites extends Context.Tag("@crm/core/Sites")<
  Sites,
  {
    /** A domain another site of the organisation uses is refused (409 `domain_already_exists`). */
    readonly createSite: (
      organisation: Organisation,
      input: z.output<typeof SiteCreate>
    ) => Effect.Effect<Site, DomainAlreadyExists | StorageError>
    readonly listSites: (
      organisation: Organisation,
      query: SiteListQuery
    ) => Effect.Effect<PageResult<Site>, StorageError>
    /**
     * A draft unless `publish`; the site must exist (422 naming `site_id`), every section must be a
     * catalogue type with valid data, and a form or booking section must name a form of the
     * organisation's settings or one of its booking series. A path the site already holds is
     * refused with 409 `path_already_exists` and `{path, page_id}`, also when two creates race.
     */
    readonly createPage: (
      organisation: Organisation,
      input: z.output<typeof PageCreate>
    ) => Effect.Effect<Page, ValidationFailed | PathAlreadyExists | StorageError>
    readonly listPages: (
      organisation: Organisation,
      query: PageListQuery
    ) => Effect.Effect<PageResult<Page>, StorageError>
    /** A slug the site already holds is refused with 409 `slug_already_exists` and `{slug, post_id}`. */
    readonly createPost: (
      organisation: Organisation,
      input: z.output<typeof PostCreate>
    ) => Effect.Effect<Post, ValidationFailed | SlugAlreadyExists | StorageError>
    readonly listPosts: (
      organisation: Organisation,
      query: PostListQuery
    ) => Effect.Effect<PageResult<Post>, StorageError>
  }
>() {}

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* SiteRepository
  const bookings = yield* BookingRepository
  const tx = yield* Transaction

  const site = (organisation: Organisation, id: SiteId) =>
    linked("site_id", id, (siteId) => repo.getSite(organisation.id, siteId))

  // The forms and booking series that sections point at must be the organisation's own.
  const checkReferences = (organisation: Organisation, sections: ReadonlyArray<SectionTypes.Section>) =>
    Effect.gen(function* () {
      const issues: Array<ValidationIssue> = []
      const forms = new Set(organisation.settings.forms.map((form) => form.id.toLowerCase()))
      for (const reference of SectionTypes.references(sections)) {
        const known =
          reference.kind === "form"
            ? forms.has(reference.id)
            : Option.isSome(yield* bookings.getSeries(organisation.id, brand(SeriesId, reference.id)))
        if (!known) {
          issues.push({
            path: reference.path,
            message: `no such ${reference.kind === "form" ? "form" : "booking series"} in this organisation: ${reference.id}`,
            code: "unknown_reference"
          })
        }
      }
      if (issues.length > 0) return yield* new ValidationFailed({ detail: issues })
    })

  return Sites.of({
    createSite: operation("Sites.createSite")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const now = yield* nowIso
          const created: Site = {
            id: brand(SiteId, ids.next()),
            name: input.name,
            domain: input.domain ?? null,
            language: input.language,
            created_at: now,
            updated_at: now
          }
          yield* repo.insertSite(organisation.id, created)
          return created
        })
      )
    }),
    listSites: (organisation, query) =>
      Effect.map(repo.listSites(organisation.id, query), (rows) => toPage(rows, query)),
    createPage: operation("Sites.createPage")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          yield* site(organisation, input.site_id)
          // The schema checked the sections already; this parse also applies each type's defaults.
          const sections = yield* Either.mapLeft(
            SectionTypes.check(input.sections),
            (detail) => new ValidationFailed({ detail })
          )
          yield* checkReferences(organisation, sections)
          const now = yield* nowIso
          const page: Page = {
            id: brand(PageId, ids.next()),
            site_id: input.site_id,
            path: input.path,
            title: input.title,
            status: input.publish ? "published" : "draft",
            sections: [...sections],
            published_at: input.publish ? now : null,
            created_at: now,
            updated_at: now
          }
          yield* repo.insertPage(organisation.id, page)
          return page
        })
      )
    }),
    listPages: (organisation, query) =>
      Effect.map(
        repo.listPages(
          organisation.id,
          {
            ...(query.site_id !== undefined ? { siteId: query.site_id } : {}),
            ...(query.status !== undefined ? { status: query.status } : {})
          },
          query
        ),
        (rows) => toPage(rows, query)
      ),
    createPost: operation("Sites.createPost")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          yield* site(organisation, input.site_id)
          const now = yield* nowIso
          const post: Post = {
            id: brand(PostId, ids.next()),
            site_id: input.site_id,
            slug: input.slug,
            title: input.title,
            excerpt: input.excerpt ?? null,
            body: input.body,
            status: input.publish ? "published" : "draft",
            published_at: input.publish ? now : null,
            tags: input.tags,
            created_at: now,
            updated_at: now
          }
          yield* repo.insertPost(organisation.id, post)
          return post
        })
      )
    }),
    listPosts: (organisation, query) =>
      Effect.map(
        repo.listPosts(
          organisation.id,
          {
            ...(query.site_id !== undefined ? { siteId: query.site_id } : {}),
            ...(query.status !== undefined ? { status: query.status } : {}),
            ...(query.tag !== undefined ? { tag: query.tag } : {})
          },
          query
        ),
        (rows) => toPage(rows, query)
      )
  })
})

export const layer = Layer.effect(Sites, make)
