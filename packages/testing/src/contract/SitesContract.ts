/**
 * The storage contract of sites, pages, posts, bookings and link pages, through their kernel
 * services on every adapter: round trips, uniqueness (also under concurrency), list filters and
 * orders, and tenant isolation.
 */
import { Bookings, Contacts, Errors, LinkPages, Sites } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { at, ids, newId, type StoragePorts, seed, uuid } from "./Fixtures.js"

const services = (ports: Layer.Layer<StoragePorts, unknown>) =>
  Layer.provideMerge(Layer.mergeAll(Sites.layer, Bookings.layer, LinkPages.layer), ports)

const pageInput = (siteId: string, path: string, overrides: Record<string, unknown> = {}) =>
  Sites.PageCreate.parse({ site_id: siteId, path, title: `Page ${path}`, ...overrides })

type Fails<A> = Effect.Effect<Either.Either<A, unknown>, never, never>
const attempt = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.either(self) as unknown as Fails<A>

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(() => services(makeLayer()), options)

  describe(`sites storage contract: ${name}`, () => {
    test(
      "sites: round trip, domain unique per organisation (free in another), lists per organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const sites = yield* Sites.Sites
        const shop = yield* sites.createSite(a, Sites.SiteCreate.parse({ name: "Shop", domain: "Shop.Example.com" }))
        expect(shop).toMatchObject({ name: "Shop", domain: "shop.example.com", language: "en" })
        const blog = yield* sites.createSite(a, Sites.SiteCreate.parse({ name: "Blog", language: "cs-CZ" }))
        const clash = yield* Effect.either(
          sites.createSite(a, Sites.SiteCreate.parse({ name: "Other", domain: "shop.example.com" }))
        )
        expect(Either.getLeft(clash).pipe((e) => (e._tag === "Some" ? e.value : undefined))).toEqual(
          new Errors.DomainAlreadyExists({ detail: { domain: "shop.example.com", site_id: shop.id } })
        )
        yield* sites.createSite(b, Sites.SiteCreate.parse({ name: "Theirs", domain: "shop.example.com" }))
        const listed = yield* sites.listSites(a, { limit: 50, offset: 0 })
        expect(listed.data.map((site) => site.id).sort()).toEqual([shop.id, blog.id].sort())
        expect(listed.data.find((site) => site.id === shop.id)).toEqual(shop)
        expect((yield* sites.listSites(a, { limit: 1, offset: 0 })).has_more).toBe(true)
      })
    )

    test(
      "pages: draft or published, path normalised and unique per site, sections stored, filters, isolation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const sites = yield* Sites.Sites
        const one = yield* sites.createSite(a, Sites.SiteCreate.parse({ name: "One" }))
        const two = yield* sites.createSite(a, Sites.SiteCreate.parse({ name: "Two" }))
        const home = yield* sites.createPage(
          a,
          pageInput(one.id, "/", {
            sections: [
              { type: "hero", data: { heading: "Welcome", cta_label: "Shop", cta_url: "/shop" } },
              { type: "faq", data: { items: [{ question: "Open on Sunday?", answer: "**No.**" }] } }
            ],
            publish: true
          })
        )
        expect(home).toMatchObject({ path: "/", status: "published" })
        expect(home.published_at).toBe(home.created_at)
        expect(home.sections[0]).toEqual({
          type: "hero",
          data: { heading: "Welcome", cta_label: "Shop", cta_url: "/shop" }
        })
        const about = yield* sites.createPage(a, pageInput(one.id, "About/"))
        expect(about).toMatchObject({ path: "/about", status: "draft", published_at: null, sections: [] })
        // The same path on another site is another page.
        const aboutTwo = yield* sites.createPage(a, pageInput(two.id, "/about"))

        const taken = yield* Effect.either(sites.createPage(a, pageInput(one.id, "/ABOUT")))
        expect(Either.isLeft(taken) && taken.left).toEqual(
          new Errors.PathAlreadyExists({ detail: { path: "/about", page_id: about.id } })
        )

        // A site of another organisation is not a site here.
        const foreign = yield* Effect.either(sites.createPage(b, pageInput(one.id, "/x")))
        expect(Either.isLeft(foreign) && foreign.left).toMatchObject({
          code: "validation_failed",
          detail: [{ path: "site_id", code: "unknown_reference" }]
        })

        const list = (query: Partial<Sites.PageListQuery>) =>
          Effect.map(sites.listPages(a, { limit: 50, offset: 0, ...query }), (page) =>
            page.data.map((p) => p.id).sort()
          )
        expect(yield* list({})).toEqual([home.id, about.id, aboutTwo.id].sort())
        expect(yield* list({ site_id: one.id })).toEqual([home.id, about.id].sort())
        expect(yield* list({ site_id: one.id, status: "draft" })).toEqual([about.id])
        expect(yield* list({ status: "published" })).toEqual([home.id])
        expect(yield* list({ site_id: newId(Sites.SiteId) })).toEqual([])
        expect((yield* sites.listPages(b, { limit: 50, offset: 0 })).data).toEqual([])
        const stored = (yield* sites.listPages(a, { limit: 50, offset: 0, site_id: one.id, status: "published" })).data
        expect(stored).toEqual([home])
      })
    )

    concurrent(
      "pages: ten concurrent creates of one path leave exactly one page",
      Effect.gen(function* () {
        const { a } = yield* seed
        const sites = yield* Sites.Sites
        const site = yield* sites.createSite(a, Sites.SiteCreate.parse({ name: "Race" }))
        const results = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            attempt(sites.createPage(a, pageInput(site.id, "/launch", { title: `T${i}` })))
          ),
          { concurrency: "unbounded" }
        )
        const won = results.filter(Either.isRight).map((result) => result.right)
        expect(won).toHaveLength(1)
        for (const result of results.filter(Either.isLeft)) {
          expect(result.left).toEqual(
            new Errors.PathAlreadyExists({ detail: { path: "/launch", page_id: won[0]!.id } })
          )
        }
        const listed = yield* sites.listPages(a, { limit: 50, offset: 0, site_id: site.id })
        expect(ids(listed.data)).toEqual([won[0]!.id])
      })
    )

    test(
      "sections: form and booking sections must name the organisation's own form or series",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const sites = yield* Sites.Sites
        const bookings = yield* Bookings.Bookings
        const site = yield* sites.createSite(a, Sites.SiteCreate.parse({ name: "S" }))
        const theirs = yield* bookings.createSeries(
          b,
          Bookings.SeriesCreate.parse({ name: "Call", duration_minutes: 30 })
        )
        const refused = yield* Effect.either(
          sites.createPage(
            a,
            pageInput(site.id, "/book", {
              sections: [
                { type: "booking", data: { series_id: theirs.id } },
                { type: "form", data: { form_id: uuid() } }
              ]
            })
          )
        )
        expect(Either.isLeft(refused) && refused.left).toMatchObject({
          code: "validation_failed",
          detail: [
            { path: "sections.0.data.series_id", code: "unknown_reference" },
            { path: "sections.1.data.form_id", code: "unknown_reference" }
          ]
        })
        const ours = yield* bookings.createSeries(
          a,
          Bookings.SeriesCreate.parse({ name: "Call", duration_minutes: 30 })
        )
        const page = yield* sites.createPage(
          a,
          pageInput(site.id, "/book", { sections: [{ type: "booking", data: { series_id: ours.id } }] })
        )
        expect(page.sections).toEqual([{ type: "booking", data: { series_id: ours.id } }])
      })
    )

    test(
      "posts: slug unique per site, tags lower-cased, filters by site, status and tag",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const sites = yield* Sites.Sites
        const one = yield* sites.createSite(a, Sites.SiteCreate.parse({ name: "One" }))
        const two = yield* sites.createSite(a, Sites.SiteCreate.parse({ name: "Two" }))
        const post = (siteId: string, slug: string, extra: Record<string, unknown> = {}) =>
          sites.createPost(a, Sites.PostCreate.parse({ site_id: siteId, slug, title: slug, body: "# Hi", ...extra }))
        const hello = yield* post(one.id, "hello", { tags: ["News", "news", "Launch"], publish: true, excerpt: "Hi" })
        expect(hello).toMatchObject({ tags: ["news", "launch"], status: "published", excerpt: "Hi" })
        const draft = yield* post(one.id, "draft-notes", { tags: ["internal"] })
        const other = yield* post(two.id, "hello", { tags: ["news"] })
        const clash = yield* Effect.either(post(one.id, "Hello"))
        expect(Either.isLeft(clash) && clash.left).toEqual(
          new Errors.SlugAlreadyExists({ detail: { slug: "hello", post_id: hello.id } })
        )
        const list = (query: Partial<Sites.PostListQuery>) =>
          Effect.map(sites.listPosts(a, { limit: 50, offset: 0, ...query }), (page) =>
            page.data.map((p) => p.id).sort()
          )
        expect(yield* list({})).toEqual([hello.id, draft.id, other.id].sort())
        expect(yield* list({ tag: "news" })).toEqual([hello.id, other.id].sort())
        expect(yield* list({ tag: "news", site_id: one.id })).toEqual([hello.id])
        expect(yield* list({ status: "draft" })).toEqual([draft.id, other.id].sort())
        expect(yield* list({ tag: "nothing" })).toEqual([])
        expect((yield* sites.listPosts(a, { limit: 50, offset: 0, tag: "launch" })).data).toEqual([hello])
        expect((yield* sites.listPosts(b, { limit: 50, offset: 0 })).data).toEqual([])
      })
    )

    test(
      "bookings: validation, answers kept, default end from the series, filters, upcoming and past orders",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const bookings = yield* Bookings.Bookings
        const contacts = yield* Contacts.ContactRepository
        const series = yield* bookings.createSeries(
          a,
          Bookings.SeriesCreate.parse({
            name: "Yoga",
            duration_minutes: 60,
            location: "Studio 1",
            questions: [
              { key: "level", label: "Your level", required: true },
              { key: "injuries", label: "Any injuries?" }
            ]
          })
        )
        const contactId = newId(Contacts.ContactId)
        yield* contacts.insert(a.id, {
          id: contactId,
          first_name: "Ann",
          last_name: null,
          email: null,
          phone: null,
          company_id: null,
          status: "lead",
          source: null,
          custom: {},
          created_at: at(0),
          updated_at: at(0)
        })
        const book = (input: Record<string, unknown>) =>
          bookings.create(a, Bookings.BookingCreate.parse({ name: "Ann", email: "Ann@Example.com", ...input }))
        const refusal = (input: Record<string, unknown>) =>
          Effect.map(Effect.flip(book(input)), (error) => (error as Errors.ValidationFailed).detail.map((i) => i.path))

        expect(yield* refusal({ series_id: series.id, starts_at: at(1000), answers: { color: "red" } })).toEqual([
          "answers.level",
          "answers.color"
        ])
        expect(yield* refusal({ series_id: uuid(), starts_at: at(1000) })).toEqual(["series_id"])
        expect(yield* refusal({ starts_at: at(1000) })).toEqual(["ends_at"])
        expect(yield* refusal({ starts_at: at(1000), ends_at: at(1000) })).toEqual(["ends_at"])
        expect(yield* refusal({ starts_at: at(1000), ends_at: at(2000), series_seq: 2 })).toEqual(["series_seq"])
        expect(yield* refusal({ starts_at: at(1000), ends_at: at(2000), contact_id: uuid() })).toEqual(["contact_id"])

        const now = Date.now()
        const iso = (offsetMinutes: number) => new Date(now + offsetMinutes * 60_000).toISOString()
        const past = yield* book({
          series_id: series.id,
          series_seq: 1,
          starts_at: iso(-120),
          answers: { level: "beginner" },
          status: "completed"
        })
        expect(past).toMatchObject({
          email: "ann@example.com",
          ends_at: iso(-60),
          series_seq: 1,
          answers: { level: "beginner" }
        })
        const soon = yield* book({
          series_id: series.id,
          series_seq: 2,
          starts_at: iso(60),
          answers: { level: "advanced", injuries: "knee" },
          contact_id: contactId
        })
        const later = yield* book({ series_id: series.id, series_seq: 3, starts_at: iso(600), answers: { level: "x" } })
        const oneOff = yield* book({ starts_at: iso(30), ends_at: iso(45), status: "pending" })

        const list = (query: Partial<Bookings.BookingListQuery>) =>
          Effect.map(bookings.list(a, { limit: 50, offset: 0, ...query }), (page) => ids(page.data))
        expect(yield* list({ upcoming: true })).toEqual(ids([oneOff, soon, later]))
        expect(yield* list({ upcoming: true, limit: 2 })).toEqual(ids([oneOff, soon]))
        expect(yield* list({ upcoming: false })).toEqual([past.id])
        expect((yield* list({})).sort()).toEqual(ids([past, soon, later, oneOff]).sort())
        expect(yield* list({ status: "pending" })).toEqual([oneOff.id])
        expect(yield* list({ series_id: series.id, series_seq: 2 })).toEqual([soon.id])
        expect(yield* list({ contact_id: contactId })).toEqual([soon.id])
        const listed = (yield* bookings.list(a, { limit: 50, offset: 0, series_seq: 2 })).data
        expect(listed).toEqual([soon])
        expect((yield* bookings.list(b, { limit: 50, offset: 0 })).data).toEqual([])

        // The status machine: pending → confirmed → completed; a final status stays.
        expect((yield* bookings.setStatus(a, oneOff.id, "confirmed")).status).toBe("confirmed")
        expect((yield* bookings.setStatus(a, oneOff.id, "completed")).status).toBe("completed")
        const refused = yield* Effect.either(bookings.setStatus(a, oneOff.id, "cancelled"))
        expect(Either.isLeft(refused) && refused.left).toEqual(
          new Errors.TransitionNotAllowed({ detail: { from: "completed", to: "cancelled" } })
        )
        expect((yield* bookings.get(a, oneOff.id)).status).toBe("completed")
        expect(Either.isLeft(yield* Effect.either(bookings.get(b, oneOff.id)))).toBe(true)
      })
    )

    test(
      "link pages: slug unique per organisation, links kept in order, status filter",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const pages = yield* LinkPages.LinkPages
        const bio = yield* pages.create(
          a,
          LinkPages.LinkPageCreate.parse({
            slug: "Ann",
            title: "Ann's links",
            links: [
              { label: "Shop", url: "https://shop.example.com" },
              { label: "Mail", url: "mailto:ann@example.com" },
              { label: "Call", url: "tel:+420600000000" }
            ],
            status: "published"
          })
        )
        expect(bio).toMatchObject({ slug: "ann", description: null, status: "published" })
        const draft = yield* pages.create(a, LinkPages.LinkPageCreate.parse({ slug: "draft", title: "Later" }))
        const clash = yield* Effect.either(pages.create(a, LinkPages.LinkPageCreate.parse({ slug: "ann", title: "X" })))
        expect(Either.isLeft(clash) && clash.left).toEqual(
          new Errors.SlugAlreadyExists({ detail: { slug: "ann", link_page_id: bio.id } })
        )
        yield* pages.create(b, LinkPages.LinkPageCreate.parse({ slug: "ann", title: "Another Ann" }))
        expect((yield* pages.list(a, { limit: 50, offset: 0, status: "published" })).data).toEqual([bio])
        expect(ids((yield* pages.list(a, { limit: 50, offset: 0 })).data).sort()).toEqual([bio.id, draft.id].sort())
        expect(
          LinkPages.LinkPageCreate.safeParse({
            slug: "x",
            title: "x",
            links: [{ label: "x", url: "javascript:alert(1)" }]
          }).success
        ).toBe(false)
      })
    )
  })
}
