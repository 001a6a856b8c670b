/**
 * `/docs` in headless Chromium: Redoc renders our OpenAPI document from this server alone, under
 * the page's Content-Security-Policy, and nothing is asked of any other origin.
 */
import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Browser, launch, NO_CHROMIUM, screenshot } from "../support/browser.js"
import { startServer, type TestServer } from "../support/server.js"

describe.skipIf(NO_CHROMIUM !== undefined)(`/docs in Chromium${NO_CHROMIUM ? ` (${NO_CHROMIUM})` : ""}`, () => {
  let server: TestServer
  let browser: Browser

  beforeAll(async () => {
    server = await startServer(StorageMemory.layer)
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it("renders the API reference from this origin only, within its Content-Security-Policy", async () => {
    const origin = new URL(server.url).origin
    const requested: Array<string> = []
    const elsewhere: Array<string> = []
    // Every request of the page and of its workers passes here; one to another origin is recorded and refused.
    await browser.context.route("**/*", (route) => {
      const url = route.request().url()
      requested.push(url)
      if (new URL(url).origin === origin) return route.continue()
      elsewhere.push(url)
      return route.abort()
    })
    const page = await browser.page()
    const violations: Array<string> = []
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
    })
    const errors: Array<string> = []
    page.on("pageerror", (error) => errors.push(error.message))

    const document = (await server.anonymous.get("/openapi.json")).body
    const summary: string = document.paths["/api/v1/contacts"].get.summary

    const response = await page.goto(`${server.url}/docs`)
    expect(response?.status()).toBe(200)
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'")
    await page.locator("h2", { hasText: summary }).first().waitFor({ state: "visible" })

    // The search index runs in a worker made from a blob: URL, which the policy has to allow.
    await page.getByPlaceholder("Search...").fill("invoice")
    await page.locator('[data-role="search:results"] li').first().waitFor({ state: "visible" })
    await page.getByPlaceholder("Search...").fill("")

    await screenshot(page, "docs", { fullPage: false })
    expect(requested).toContain(`${origin}/api/v1/openapi.json`)
    expect(requested.some((url) => url.startsWith(`${origin}/docs/redoc.standalone.js?v=`))).toBe(true)
    expect(elsewhere).toEqual([])
    expect(violations).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })
})
