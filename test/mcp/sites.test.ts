/**
 * The website tools of the assistant interface (sites, pages, posts, section types, bookings, link
 * pages, create_site_page), called with the SDK's own client over Streamable HTTP against the real
 * server on every store. The entities have no REST create, so they are set up with kernel
 * operations on the server's own store.
 */
import { Access, Bookings, LinkPages, Sites } from "@crm/core"
import type { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js"
import * as Effect from "effect/Effect"
import { beforeAll, expect, it } from "vitest"
import { callTool, mcpClient } from "../support/mcp.js"
import type { TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const FORM_ID = "3d1c3a52-5f0e-4f57-9d2b-2f0f8c0b6a11"
const SETTINGS = {
  forms: [{ id: FORM_ID, name: "Contact us", fields: [{ key: "email", type: "email", maps_to: "email" }] }]
}

interface Fixture {
  readonly mcp: McpClient
  readonly readOnly: McpClient
  readonly ids: Record<string, string>
  readonly organisationId: string
}

const ids = (result: { value: any }): Array<string> => result.value.items.map((item: any) => item.id).sort()
const sorted = (...values: ReadonlyArray<string>) => [...values].sort()
const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString()

const setUp = async (server: TestServer): Promise<Fixture> => {
  const tenant = await server.tenant({ settings: SETTINGS })
  const readOnlyKey = await server.admin.post(`/organisations/${tenant.organisation.id}/keys`, {
    name: "read only",
    scopes: ["read"]
  })
  const contact = await tenant.client.post("/contacts", { first_name: "Ann", email: "ann@example.com" })
  const made = await server.run(
    Effect.gen(function* () {
      const organisation = yield* (yield* Access.Access).getOrganisation(tenant.organisation.id)
      const sites = yield* Sites.Sites
      const bookings = yield* Bookings.Bookings
      const links = yield* LinkPages.LinkPages
      const shop = yield* sites.createSite(
        organisation,
        Sites.SiteCreate.parse({ name: "Shop", domain: "shop.example.com" })
      )
      const blog = yield* sites.createSite(organisation, Sites.SiteCreate.parse({ name: "Blog" }))
      const home = yield* sites.createPage(
        organisation,
        Sites.PageCreate.parse({
          site_id: shop.id,
          path: "/",
          title: "Home",
          sections: [{ type: "text", data: { markdown: "Hello" } }],
          publish: true
        })
      )
      const post = (siteId: string, slug: string, tags: Array<string>, publish: boolean) =>
        sites.createPost(
          organisation,
          Sites.PostCreate.parse({ site_id: siteId, slug, title: slug, body: "Body", tags, publish })
        )
      const launch = yield* post(blog.id, "launch", ["news"], true)
      const notes = yield* post(blog.id, "notes", ["internal"], false)
      const shopNews = yield* post(shop.id, "sale", ["news"], false)
      const yoga = yield* bookings.createSeries(
        organisation,
        Bookings.SeriesCreate.parse({
          name: "Yoga",
          duration_minutes: 60,
          questions: [{ key: "level", label: "Level", required: true }]
        })
      )
      const book = (input: Record<string, unknown>) =>
        bookings.create(organisation, Bookings.BookingCreate.parse({ name: "Ann", email: "ann@example.com", ...input }))
      const past = yield* book({
        series_id: yoga.id,
        series_seq: 1,
        starts_at: minutes(-600),
        answers: { level: "beginner" },
        status: "completed"
      })
      const soon = yield* book({
        series_id: yoga.id,
        series_seq: 2,
        starts_at: minutes(60),
        answers: { level: "advanced" },
        contact_id: contact.body.id
      })
      const later = yield* book({ series_id: yoga.id, series_seq: 3, starts_at: minutes(600), answers: { level: "x" } })
      const call = yield* book({ starts_at: minutes(30), ends_at: minutes(60), status: "pending" })
      const bio = yield* links.create(
        organisation,
        LinkPages.LinkPageCreate.parse({
          slug: "ann",
          title: "Ann",
          links: [{ label: "Shop", url: "https://shop.example.com" }],
          status: "published"
        })
      )
      const draftBio = yield* links.create(
        organisation,
        LinkPages.LinkPageCreate.parse({ slug: "soon", title: "Soon" })
      )
      return {
        shop: shop.id,
        blog: blog.id,
        home: home.id,
        launch: launch.id,
        notes: notes.id,
        shopNews: shopNews.id,
        yoga: yoga.id,
        past: past.id,
        soon: soon.id,
        later: later.id,
        call: call.id,
        bio: bio.id,
        draftBio: draftBio.id,
        contact: contact.body.id
      }
    })
  )
  return {
    mcp: await mcpClient(server, tenant.key),
    readOnly: await mcpClient(server, readOnlyKey.body.key),
    ids: made,
    organisationId: tenant.organisation.id
  }
}

onEveryStore("MCP website tools", (server) => {
  let f: Fixture
  beforeAll(async () => {
    f = await setUp(server())
  })

  it("lists every website tool with truthful hints", async () => {
    const { tools } = await f.mcp.listTools()
    const byName = new Map(tools.map((entry) => [entry.name, entry]))
    for (const name of [
      "list_sites",
      "list_site_pages",
      "list_site_posts",
      "list_section_types",
      "list_bookings",
      "list_link_pages"
    ]) {
      expect(byName.get(name)?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })
    }
    expect(byName.get("create_site_page")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false
    })
    const schema = byName.get("create_site_page")!.inputSchema as any
    expect(schema.required).toEqual(expect.arrayContaining(["site_id", "path", "title"]))
    expect(schema.properties.sections.items.properties.type.enum).toContain("hero")
  })

  it("list_sites with limit and has_more", async () => {
    const all = await callTool(f.mcp, "list_sites")
    expect(ids(all)).toEqual(sorted(f.ids.shop!, f.ids.blog!))
    expect(all.value.items.find((site: any) => site.id === f.ids.shop)).toMatchObject({
      name: "Shop",
      domain: "shop.example.com",
      language: "en"
    })
    const one = await callTool(f.mcp, "list_sites", { limit: 1 })
    expect(one.value.items).toHaveLength(1)
    expect(one.value.has_more).toBe(true)
  })

  it("list_site_pages and list_site_posts filter by site, status and tag", async () => {
    const pages = await callTool(f.mcp, "list_site_pages", { site_id: f.ids.shop, status: "published" })
    expect(pages.value.items).toHaveLength(1)
    expect(pages.value.items[0]).toMatchObject({
      id: f.ids.home,
      path: "/",
      status: "published",
      sections: [{ type: "text", data: { markdown: "Hello" } }]
    })
    expect((await callTool(f.mcp, "list_site_pages", { site_id: f.ids.blog })).value.items).toEqual([])
    expect(ids(await callTool(f.mcp, "list_site_posts", { tag: "NEWS" }))).toEqual(
      sorted(f.ids.launch!, f.ids.shopNews!)
    )
    expect(ids(await callTool(f.mcp, "list_site_posts", { site_id: f.ids.blog, status: "draft" }))).toEqual([
      f.ids.notes
    ])
    const bad = await callTool(f.mcp, "list_site_posts", { status: "archived" })
    expect(bad.isError).toBe(true)
    expect(bad.value.error).toBe("validation_failed")
    expect(bad.value.detail[0].path).toBe("status")
  })

  it("list_section_types gives each type's data schema and an example", async () => {
    const result = await callTool(f.mcp, "list_section_types")
    expect(result.value.items.map((item: any) => item.type)).toEqual([
      "hero",
      "text",
      "image",
      "gallery",
      "features",
      "cta",
      "form",
      "booking",
      "faq"
    ])
    const hero = result.value.items[0]
    expect(hero.data_schema.required).toEqual(["heading"])
    expect(hero.example.heading).toBeTypeOf("string")
    expect(result.value.has_more).toBe(false)
  })

  it("list_bookings: upcoming soonest first, past, filters, answers on every item", async () => {
    const upcoming = await callTool(f.mcp, "list_bookings", { upcoming: true })
    expect(upcoming.value.items.map((item: any) => item.id)).toEqual([f.ids.call, f.ids.soon, f.ids.later])
    expect(upcoming.value.items[1]).toMatchObject({
      series_id: f.ids.yoga,
      series_seq: 2,
      contact_id: f.ids.contact,
      status: "confirmed",
      answers: { level: "advanced" }
    })
    expect(upcoming.value.items[0].answers).toEqual({})
    expect(ids(await callTool(f.mcp, "list_bookings", { upcoming: false }))).toEqual([f.ids.past])
    expect(ids(await callTool(f.mcp, "list_bookings", { status: "pending" }))).toEqual([f.ids.call])
    expect(ids(await callTool(f.mcp, "list_bookings", { series_id: f.ids.yoga, series_seq: 3 }))).toEqual([f.ids.later])
    expect(ids(await callTool(f.mcp, "list_bookings", { contact_id: f.ids.contact }))).toEqual([f.ids.soon])
    expect(ids(await callTool(f.mcp, "list_bookings"))).toHaveLength(4)
    const capped = await callTool(f.mcp, "list_bookings", { upcoming: true, limit: 1 })
    expect(capped.value).toMatchObject({ items: [{ id: f.ids.call }], has_more: true })
  })

  it("list_link_pages with its status filter", async () => {
    expect(ids(await callTool(f.mcp, "list_link_pages"))).toEqual(sorted(f.ids.bio!, f.ids.draftBio!))
    const published = await callTool(f.mcp, "list_link_pages", { status: "published" })
    expect(published.value.items).toEqual([
      expect.objectContaining({ slug: "ann", links: [{ label: "Shop", url: "https://shop.example.com" }] })
    ])
  })

  it("create_site_page: a draft by default, published when asked, path normalised", async () => {
    const draft = await callTool(f.mcp, "create_site_page", {
      site_id: f.ids.shop,
      path: "About-Us/",
      title: "About us",
      sections: [
        { type: "hero", data: { heading: "Who we are" } },
        { type: "form", data: { form_id: FORM_ID } },
        { type: "booking", data: { series_id: f.ids.yoga } }
      ]
    })
    expect(draft.isError).toBe(false)
    expect(draft.value).toMatchObject({ site_id: f.ids.shop, path: "/about-us", status: "draft", published_at: null })
    expect(draft.value.sections).toHaveLength(3)
    const live = await callTool(f.mcp, "create_site_page", {
      site_id: f.ids.shop,
      path: "/pricing",
      title: "Pricing",
      sections: [{ type: "cta", data: { label: "Buy", url: "https://shop.example.com/buy" } }],
      publish: true
    })
    expect(live.value).toMatchObject({ status: "published" })
    expect(live.value.published_at).toBe(live.value.created_at)
    const listed = await callTool(f.mcp, "list_site_pages", { site_id: f.ids.shop, status: "draft" })
    expect(ids(listed)).toEqual([draft.value.id])
  })

  it("create_site_page: an existing path is refused with the page holding it", async () => {
    const again = await callTool(f.mcp, "create_site_page", { site_id: f.ids.shop, path: "/", title: "Second home" })
    expect(again).toEqual({
      isError: true,
      value: { error: "path_already_exists", detail: { path: "/", page_id: f.ids.home } }
    })
  })

  it("create_site_page: unknown type, bad data, unknown site and references are validation_failed", async () => {
    const bad = await callTool(f.mcp, "create_site_page", {
      site_id: f.ids.shop,
      path: "/bad",
      title: "Bad",
      sections: [
        { type: "text", data: { markdown: "fine" } },
        { type: "hero", data: { subheading: "no heading", extra: 1 } }
      ]
    })
    expect(bad.isError).toBe(true)
    expect(bad.value.error).toBe("validation_failed")
    expect(bad.value.detail.map((issue: any) => issue.path).sort()).toEqual([
      "sections.1.data.extra",
      "sections.1.data.heading"
    ])
    const unknown = await callTool(f.mcp, "create_site_page", {
      site_id: f.ids.shop,
      path: "/bad",
      title: "Bad",
      sections: [{ type: "carousel", data: {} }]
    })
    expect(unknown.value.error).toBe("validation_failed")
    expect(unknown.value.detail.map((issue: any) => issue.path)).toEqual(["sections.0.type"])
    const path = await callTool(f.mcp, "create_site_page", { site_id: f.ids.shop, path: "/a b", title: "Bad" })
    expect(path.value.detail.map((issue: any) => issue.path)).toEqual(["path"])
    const site = await callTool(f.mcp, "create_site_page", { site_id: crypto.randomUUID(), path: "/x", title: "X" })
    expect(site.value).toMatchObject({ error: "validation_failed", detail: [{ path: "site_id" }] })
    const reference = await callTool(f.mcp, "create_site_page", {
      site_id: f.ids.shop,
      path: "/x",
      title: "X",
      sections: [{ type: "form", data: { form_id: crypto.randomUUID() } }]
    })
    expect(reference.value).toMatchObject({ error: "validation_failed", detail: [{ path: "sections.0.data.form_id" }] })
    // Nothing was created by the refused calls.
    const pages = await callTool(f.mcp, "list_site_pages", { site_id: f.ids.shop })
    expect(pages.value.items.map((page: any) => page.path)).not.toContain("/bad")
    expect(pages.value.items.map((page: any) => page.path)).not.toContain("/x")
  })

  it("a read-only key lists but cannot create a page", async () => {
    expect((await callTool(f.readOnly, "list_sites")).isError).toBe(false)
    const refused = await callTool(f.readOnly, "create_site_page", { site_id: f.ids.shop, path: "/ro", title: "RO" })
    expect(refused.isError).toBe(true)
    expect(refused.value.error).toBe("missing_scope:write")
  })
})
