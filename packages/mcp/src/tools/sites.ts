/**
 * The website tools: sites with their pages and posts, the section type catalogue, bookings and
 * link-in-bio pages, plus `create_site_page`. Inputs are the kernel's list queries and PageCreate
 * with the paging replaced by the tool's `limit` (and `offset`); each calls the same kernel operation
 * an embedder or the admin import would.
 */
import { Bookings, LinkPages, Sites } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { CREATES, listOf, listResult, paging, READ_ONLY, type Tool, tool } from "../Tool.js"

const { site_id: siteId, status: publication } = Sites.PageListQuery.shape
const booking = Bookings.BookingListQuery.shape

/** A section type as `SectionTypes.describe` gives it. */
const SectionType = z.object({
  type: z.string(),
  description: z.string(),
  // A JSON Schema and a value it admits: open by nature.
  data_schema: z.record(z.string(), z.unknown()).describe("the JSON Schema a section's data must match"),
  example: z.record(z.string(), z.unknown()).describe("a data object that matches it")
})

export const siteTools: ReadonlyArray<Tool> = [
  tool({
    name: "list_sites",
    title: "List websites",
    description:
      "The organisation's websites, newest first: id, name, domain (null until one is connected) and content language. Use a site's id with list_site_pages, list_site_posts and create_site_page.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object(paging),
    output: listResult(Sites.Site),
    run: (input, { principal }) =>
      Effect.flatMap(Sites.Sites, (sites) => sites.listSites(principal.organisation, input)).pipe(Effect.map(listOf))
  }),
  tool({
    name: "list_site_pages",
    title: "List website pages",
    description:
      "Pages of the organisation's websites, newest first, each with its path, title, status (draft or published), published_at and its sections (type and data, top to bottom). Filter by `site_id` and by `status`.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({ site_id: siteId, status: publication, ...paging }),
    output: listResult(Sites.Page),
    run: (input, { principal }) =>
      Effect.flatMap(Sites.Sites, (sites) => sites.listPages(principal.organisation, input)).pipe(Effect.map(listOf))
  }),
  tool({
    name: "list_site_posts",
    title: "List blog posts",
    description:
      "Blog posts of the organisation's websites, newest first, with slug, title, excerpt, Markdown body, status, published_at and tags. Filter by `site_id`, `status` (draft or published) and `tag` (case-insensitive).",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({
      site_id: Sites.PostListQuery.shape.site_id,
      status: Sites.PostListQuery.shape.status,
      tag: Sites.PostListQuery.shape.tag,
      ...paging
    }),
    output: listResult(Sites.Post),
    run: (input, { principal }) =>
      Effect.flatMap(Sites.Sites, (sites) => sites.listPosts(principal.organisation, input)).pipe(Effect.map(listOf))
  }),
  tool({
    name: "list_section_types",
    title: "List page section types",
    description:
      "The section types a website page is built from (hero, text, image, gallery, features, cta, form, booking, faq), each with a description, the JSON Schema its `data` must match and an example. Call it before create_site_page.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({ limit: paging.limit }),
    output: listResult(SectionType),
    run: (input) =>
      Effect.sync(() => ({
        items: Sites.SectionTypes.CATALOGUE.slice(0, input.limit).map(Sites.SectionTypes.describe),
        has_more: Sites.SectionTypes.CATALOGUE.length > input.limit
      }))
  }),
  tool({
    name: "list_bookings",
    title: "List bookings",
    description:
      "Bookings (appointments and class places), each with its series and occurrence (series_seq), contact, name, email, start and end, status and the booker's `answers` to the series' questions. `upcoming: true` lists those starting now or later, soonest first (false: those already started, latest first; omitted: all, newest created first); filter also by status, series_id, series_seq and contact_id.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({
      upcoming: z
        .boolean()
        .optional()
        .describe(booking.upcoming.description ?? ""),
      status: booking.status,
      series_id: booking.series_id,
      series_seq: z.number().int().min(1).optional().describe("only this occurrence of the series (1 = the first)"),
      contact_id: booking.contact_id,
      answers: z
        .boolean()
        .default(true)
        .describe("false leaves each booking's answers out (shorter results); default true"),
      ...paging
    }),
    output: listResult(Bookings.Booking.partial({ answers: true })),
    run: ({ answers, ...query }, { principal }) =>
      Effect.flatMap(Bookings.Bookings, (bookings) => bookings.list(principal.organisation, query)).pipe(
        Effect.map((page) =>
          listOf(answers ? page : { ...page, data: page.data.map(({ answers: _left, ...rest }) => rest) })
        )
      )
  }),
  tool({
    name: "list_link_pages",
    title: "List link-in-bio pages",
    description:
      "The organisation's link-in-bio pages, newest first: slug, title, description, the links (label and url, top to bottom) and status. Filter by `status` (draft or published).",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({ status: LinkPages.LinkPageListQuery.shape.status, ...paging }),
    output: listResult(LinkPages.LinkPage),
    run: (input, { principal }) =>
      Effect.flatMap(LinkPages.LinkPages, (pages) => pages.list(principal.organisation, input)).pipe(Effect.map(listOf))
  }),
  tool({
    name: "create_site_page",
    title: "Create a website page",
    description:
      "Creates a page on one of the organisation's websites (site_id from list_sites) at `path` (e.g. \"/about\", normalised to lower case) from a list of sections, each a type from list_section_types with `data` matching that type's schema. Saved as a draft unless `publish` is true. A path the site already has is refused with path_already_exists naming the existing page; no page is overwritten.",
    scope: "write",
    annotations: CREATES,
    input: Sites.PageCreate,
    output: Sites.Page,
    run: (input, { principal }) =>
      Effect.flatMap(Sites.Sites, (sites) => sites.createPage(principal.organisation, input))
  })
]
