/**
 * `/docs`, `/admin` and `/settings` over HTTP: outside the APIs (no key, no budget), each under its
 * Content-Security-Policy, their files under versioned URLs a browser may keep. What the pages do
 * in a browser is in test/browser.
 */
import type { IncomingMessage } from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Access, Events, People } from "@crm/core"
import { Pages } from "@crm/pages"
import * as StorageMemory from "@crm/storage-memory"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkedFetch } from "../support/responseCheck.js"
import { startServer, type TestServer } from "../support/server.js"

const REDOC_VERSION: string = createRequire(import.meta.url)("redoc/package.json").version

describe("pages", () => {
  let server: TestServer
  const get = (path: string, headers: Record<string, string> = {}) => checkedFetch(`${server.url}${path}`, { headers })

  beforeAll(async () => {
    server = await startServer(StorageMemory.layer)
  })
  afterAll(async () => {
    await server?.close()
  })

  it("answer without a key and spend none of a key's budget", async () => {
    const { key, client } = await server.tenant()
    for (const path of [
      "/docs",
      "/admin",
      "/admin/admin.js",
      "/admin/admin.css",
      "/settings",
      "/settings/settings.js",
      "/settings/settings.css"
    ]) {
      const anonymous = await get(path)
      expect(anonymous.status, path).toBe(200)
      const withKey = await get(path, { authorization: `Bearer ${key}` })
      expect(withKey.status, path).toBe(200)
      expect(withKey.headers.get("x-ratelimit-remaining"), path).toBeNull()
    }
    const me = await client.get("/me")
    expect(me.body.rate_limit.remaining).toBe(me.body.rate_limit.limit)
  })

  it("serve the HTML pages under a policy of this origin only, asked for again each time", async () => {
    for (const [path, policy] of [
      ["/docs", Pages.DOCS_POLICY],
      ["/admin", Pages.ADMIN_POLICY],
      ["/settings", Pages.SETTINGS_POLICY]
    ] as const) {
      const response = await get(path)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(response.headers.get("content-security-policy")).toBe(policy)
      expect(response.headers.get("cache-control")).toBe("no-cache")
      expect(response.headers.get("x-content-type-options")).toBe("nosniff")
      expect(response.headers.get("referrer-policy")).toBe("no-referrer")
      expect(policy).toMatch(/^default-src 'none'; /)
      // Nothing from another origin: every source is this one, an inline style or a blob: worker.
      for (const directive of policy.split("; ")) {
        const [, ...sources] = directive.split(" ")
        for (const source of sources)
          expect(["'none'", "'self'", "'unsafe-inline'", "data:", "blob:"]).toContain(source)
      }
    }
  })

  it("serve the admin page's files and Redoc's bundle under versioned URLs, kept for a year", async () => {
    const admin = await (await get("/admin")).text()
    const script = /<script type="module" src="(\/admin\/admin\.js\?v=[\w-]+)">/.exec(admin)?.[1]
    const style = /<link rel="stylesheet" href="(\/admin\/admin\.css\?v=[\w-]+)">/.exec(admin)?.[1]
    const docs = await (await get("/docs")).text()
    const bundle = /<script src="(\/docs\/redoc\.standalone\.js\?v=[^"]+)">/.exec(docs)?.[1]
    expect(bundle).toBe(`/docs/redoc.standalone.js?v=${REDOC_VERSION}`)
    expect(docs).toContain('spec-url="/api/v1/openapi.json"')
    for (const [url, type] of [
      [script, "text/javascript; charset=utf-8"],
      [style, "text/css; charset=utf-8"],
      [bundle, "text/javascript; charset=utf-8"]
    ] as const) {
      expect(url).toBeDefined()
      const versioned = await get(url!)
      expect(versioned.status).toBe(200)
      expect(versioned.headers.get("content-type")).toBe(type)
      expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      // fetch asks for gzip and undoes it.
      expect(versioned.headers.get("content-encoding")).toBe("gzip")
      const other = await get(`${url!.split("?")[0]}?v=another`)
      expect(other.headers.get("cache-control")).toBe("no-cache")
      expect(await other.text()).toBe(await versioned.text())
    }
    const plain = await get(bundle!, { "accept-encoding": "identity" })
    expect(plain.headers.get("content-encoding")).toBeNull()
    const text = await plain.text()
    expect(Number(plain.headers.get("content-length") ?? Buffer.byteLength(text))).toBe(Buffer.byteLength(text))
    expect(text.length).toBeGreaterThan(100_000)
    // Redocly's logo would be fetched from their CDN.
    expect(text).not.toContain("cdn.redoc.ly")
  })

  it("offer the kernel's scopes and events on the admin and settings pages", async () => {
    for (const path of ["/admin", "/settings"]) {
      const page = await (await get(path)).text()
      const values = (name: string) =>
        [...page.matchAll(new RegExp(`name="${name}" value="([^"]+)"`, "g"))].map((match) => match[1])
      expect(values("scopes"), path).toEqual([...Access.SCOPES])
      expect(values("events"), path).toEqual([...Events.EVENT_NAMES])
    }
    // The settings page offers a member only the scopes a member's key may hold.
    const settings = await (await get("/settings")).text()
    const forMembers = [...settings.matchAll(/<li data-member-scope="true"><input [^>]*value="([^"]+)"/g)]
    expect(forMembers.map((match) => match[1])).toEqual([...People.MEMBER_SCOPES])
  })

  it("serve the settings page's files under versioned URLs, its script bundled for the browser", async () => {
    const settings = await (await get("/settings")).text()
    const script = /<script type="module" src="(\/settings\/settings\.js\?v=[\w-]+)">/.exec(settings)?.[1]
    const style = /<link rel="stylesheet" href="(\/settings\/settings\.css\?v=[\w-]+)">/.exec(settings)?.[1]
    const js = await get(script!)
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    const code = await js.text()
    // One module: the client bundled in, nothing imported from elsewhere.
    expect(code).not.toMatch(/^\s*import\b/m)
    expect(code).toContain("/settings/v1")
    const css = await (await get(style!)).text()
    // The admin page's look is bundled in, not imported at run time.
    expect(css).not.toContain("@import")
    expect(css).toContain("--accent")
  })

  it("answer GET and HEAD only", async () => {
    const post = await checkedFetch(`${server.url}/admin`, { method: "POST", body: "{}" })
    expect(post.status).toBe(405)
    expect(post.headers.get("allow")).toBe("GET, HEAD")
    expect(((await post.json()) as { error: string }).error).toBe("method_not_allowed")
    const head = await checkedFetch(`${server.url}/docs`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe("")
  })

  it("send /docs/, /admin/ and /settings/ to the pages", async () => {
    for (const path of ["/docs", "/admin", "/settings"]) {
      const slashed = await checkedFetch(`${server.url}${path}/`, { redirect: "manual" })
      expect(slashed.status).toBe(308)
      expect(slashed.headers.get("location")).toBe(path)
    }
  })

  it("leave every other path to the APIs", async () => {
    expect((await get("/admin/v1/organisations/00000000-0000-4000-8000-000000000000")).status).toBe(401)
    expect((await get("/docs/other")).status).toBe(404)
    expect((await get("/api/v1/me")).status).toBe(401)
  })
})

describe("pages without Redoc", () => {
  // Resolved from a directory with no node_modules above it that holds Redoc.
  const pages = Pages.make({ resolveFrom: pathToFileURL(join(tmpdir(), "crm-no-redoc", "app.js")) })
  const request = (url: string) =>
    Effect.runPromise(pages.get(url)!({ method: "GET", url, headers: {} } as IncomingMessage))

  it("says so on /docs and links the OpenAPI document", async () => {
    const docs = await request("/docs")
    expect(docs.status).toBe(200)
    expect(docs.headers["content-security-policy"]).toBe(Pages.DOCS_POLICY)
    expect(docs.body).toContain("Redoc, which is not installed")
    expect(docs.body).toContain('<a href="/api/v1/openapi.json">')
    expect(docs.body).not.toContain("<script")
    expect((await request("/docs/redoc.standalone.js")).status).toBe(404)
  })
})
