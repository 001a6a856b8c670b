/**
 * `/admin` in headless Chromium, as the holder of the admin token uses it: sign in with the
 * keyboard, create an organisation and a key (shown once), use the key, subscribe a hook and see
 * its delivery, redeliver it, revoke the key, be told what is wrong with a setting, and invite the
 * organisation's first owner, whose link (shown once) makes its reader the owner in /settings. The
 * page runs against the real server with its webhook worker on, delivering to a local receiver.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Browser, launch, NO_CHROMIUM, screenshot, startPageServer, watchedPage } from "../support/browser.js"
import { type Receiver, startReceiver } from "../support/receiver.js"
import { ADMIN_TOKEN, type TestServer } from "../support/server.js"

const OWNER = { email: "otto@example.com", name: "Otto Owner", password: "otto's long passphrase" }

/** Waits until `check` holds, clicking `refresh` between looks (a list the page reloads on demand). */
const eventually = async (page: Page, refresh: () => Promise<void>, check: () => Promise<boolean>) => {
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await check()) return
    await page.waitForTimeout(100)
    await refresh()
  }
  throw new Error("the page never showed what was expected")
}

describe.skipIf(NO_CHROMIUM !== undefined)(`/admin in Chromium${NO_CHROMIUM ? ` (${NO_CHROMIUM})` : ""}`, () => {
  let server: TestServer
  let receiver: Receiver
  let browser: Browser
  let page: Page
  const external: Array<string> = []
  const pageErrors: Array<string> = []

  /** A page of the browser whose requests to another origin, and whose errors, are recorded (and refused). */
  const watched = (of: Browser) => watchedPage(of, server.url, { external, errors: pageErrors })
  const focusedId = () => page.evaluate<string>("document.activeElement?.id ?? ''")

  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startPageServer()
    browser = await launch()
    page = await watched(browser)
    // Revoking and deleting ask first.
    page.on("dialog", (dialog) => dialog.accept())
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await receiver?.close()
  })

  it("signs in with the keyboard alone, refusing a wrong token next to the field", async () => {
    await page.goto(`${server.url}/admin`)
    await screenshot(page, "admin-sign-in")
    // The page puts the focus in the token field; from the first stop of the page (the skip
    // link), Tab reaches it too.
    const focused = () => page.evaluate<string>("document.activeElement?.id || document.activeElement?.textContent")
    expect(await focused()).toBe("token")
    await page.keyboard.press("Shift+Tab")
    await page.keyboard.press("Shift+Tab")
    expect(await focused()).toBe("Skip to content")
    const reached: Array<string> = []
    for (const _ of [1, 2]) {
      await page.keyboard.press("Tab")
      reached.push(await focused())
    }
    expect(reached).toEqual(["API reference", "token"])

    await page.keyboard.type("not-the-token")
    await page.keyboard.press("Enter")
    await expect.poll(() => page.locator("#token-error").textContent()).toContain("not the admin token")
    expect(await page.locator("#token").getAttribute("aria-invalid")).toBe("true")
    expect(page.url()).toBe(`${server.url}/admin`)

    await page.locator("#token").fill("")
    await page.keyboard.type(ADMIN_TOKEN)
    await page.keyboard.press("Enter")
    await page.locator("#console").waitFor({ state: "visible" })
    expect(await page.locator("#sign-in").isVisible()).toBe(false)
    // The token is in this tab's session storage, and nowhere a request would carry it unasked.
    expect(await page.evaluate("sessionStorage.getItem('crm-admin-token')")).toBe(ADMIN_TOKEN)
    expect(await browser.context.cookies()).toEqual([])
    expect(page.url()).not.toContain(ADMIN_TOKEN)
  })

  let key = ""
  let keyId = ""

  it("creates an organisation and a key, showing the key once", async () => {
    await page.locator("#organisation-name").fill("Acme Browser Ltd")
    await page.getByRole("button", { name: "Create organisation" }).click()
    await expect.poll(() => page.locator("#organisation-title").textContent()).toBe("Acme Browser Ltd")
    expect(await page.locator("#organisation-list").textContent()).toContain("Acme Browser Ltd")

    // An address that is no CIDR is refused next to its field; nothing is created.
    await page.locator("#key-name").fill("integration")
    await page.getByLabel("read", { exact: true }).check()
    await page.getByLabel("write", { exact: true }).check()
    await page.locator("#key-ips").fill("127.0.0.1\nnot-an-address")
    await page.getByRole("button", { name: "Create key" }).click()
    await expect.poll(() => page.locator("#key-ips-error").textContent()).toMatch(/\S/)
    expect(await page.locator("#key-ips").getAttribute("aria-invalid")).toBe("true")
    expect(await page.locator("#new-key").isVisible()).toBe(false)

    await page.locator("#key-ips").fill("")
    await page.getByRole("button", { name: "Create key" }).click()
    await page.locator("#new-key").waitFor({ state: "visible" })
    key = (await page.locator("#new-key-value").textContent()) ?? ""
    expect(key).toMatch(/^\S{20,}$/)
    const row = page.locator("#key-table tbody tr", { hasText: "integration" })
    await row.waitFor()
    keyId = (await row.getAttribute("data-key-id")) ?? ""
    expect(await row.textContent()).toContain("Active")
    expect(await row.textContent()).not.toContain(key)

    const me = await server.as(key).get("/me")
    expect(me.status).toBe(200)
    expect(me.body.organisation.name).toBe("Acme Browser Ltd")
    expect(me.body.key.id).toBe(keyId)
    await screenshot(page, "admin-key-created")
  })

  it("subscribes a hook for the key, shows its delivery and redelivers it", async () => {
    await page.getByRole("button", { name: "Webhooks of integration" }).click()
    await page.locator("#hooks").waitFor({ state: "visible" })
    await page.locator("#hook-target").fill(receiver.url)
    await page.getByLabel("contact.created", { exact: true }).check()
    await page.getByRole("button", { name: "Subscribe" }).click()
    await page.locator("#new-secret").waitFor({ state: "visible" })
    expect(await page.locator("#new-secret-value").textContent()).toMatch(/^whsec_/)
    const hookRow = page.locator("#hook-table tbody tr", { hasText: receiver.url })
    await hookRow.waitFor()

    // An event from the API, as the key's integration would cause it.
    const contact = await server.as(key).post("/contacts", { first_name: "Ada", email: "ada@example.com" })
    expect(contact.status).toBe(201)
    await receiver.arrived(1)

    await hookRow.getByRole("button", { name: "Deliveries" }).click()
    const deliveries = page.locator("#delivery-table tbody tr", { hasText: "contact.created" })
    await eventually(
      page,
      () => page.getByRole("button", { name: "Refresh deliveries" }).click(),
      async () => (await deliveries.count()) === 1 && /succeeded/.test((await deliveries.textContent()) ?? "")
    )
    expect(await deliveries.textContent()).toContain("HTTP 200")

    await deliveries.getByRole("button", { name: "Redeliver contact.created" }).click()
    await expect.poll(() => page.locator("#status").textContent()).toContain("queued again")
    await receiver.arrived(2)
    expect(JSON.parse(receiver.received[1]!.body).data.first_name).toBe("Ada")
    await eventually(
      page,
      () => page.getByRole("button", { name: "Refresh deliveries" }).click(),
      async () => /succeeded\s*2/.test((await deliveries.textContent()) ?? "")
    )

    await page.getByRole("button", { name: "Rotate secret" }).click()
    await expect.poll(() => page.locator("#new-secret-note").textContent()).toContain("previous one")
    await screenshot(page, "admin-webhooks")
  })

  it("revokes the key, which the API then refuses; the key is never shown again", async () => {
    const row = page.locator(`#key-table tbody tr[data-key-id="${keyId}"]`)
    await row.getByRole("button", { name: "Revoke integration" }).click()
    await expect.poll(() => row.textContent()).toContain("Revoked")
    expect((await server.as(key).get("/me")).status).toBe(401)

    await page.reload()
    await page.locator("#console").waitFor({ state: "visible" })
    await page.getByRole("button", { name: /Acme Browser Ltd/ }).click()
    await page.locator(`#key-table tbody tr[data-key-id="${keyId}"]`).waitFor()
    expect(await page.locator("#new-key").isVisible()).toBe(false)
    expect(await page.content()).not.toContain(key)
  })

  it("shows a refused setting next to the settings document, and saves a valid one", async () => {
    const editor = page.locator("#settings")
    const settings = JSON.parse(await editor.inputValue())
    await editor.fill(JSON.stringify({ ...settings, default_currency: "euro", payment_terms_days: 400 }, null, 2))
    await page.getByRole("button", { name: "Save settings" }).click()
    const issues = page.locator("#settings-issues")
    await expect.poll(() => issues.textContent()).toContain("default_currency")
    expect(await issues.textContent()).toContain("payment_terms_days")
    expect(await editor.getAttribute("aria-invalid")).toBe("true")
    await screenshot(page, "admin")

    await editor.fill(JSON.stringify({ ...settings, default_currency: "CZK" }, null, 2))
    await page.getByRole("button", { name: "Save settings" }).click()
    await expect.poll(() => page.locator("#status").textContent()).toBe("Settings saved.")
    expect(await issues.textContent()).toBe("")
    const stored = await server.admin.get(`/organisations/${(await page.locator("#organisation-id").textContent())!}`)
    expect(stored.body.settings.default_currency).toBe("CZK")
  })

  it("invites the organisation's first owner, showing the link once; its reader accepts and is the owner", async () => {
    const organisationId = (await page.locator("#organisation-id").textContent()) ?? ""
    const invite = page.getByRole("button", { name: "Invite", exact: true })
    // An address the API refuses is shown next to its field, with the focus on it; nothing is created.
    await page.locator("#invite-email").fill("not-an-address")
    await invite.click()
    await expect.poll(() => page.locator("#invite-email-error").textContent()).toMatch(/\S/)
    expect(await page.locator("#invite-email").getAttribute("aria-invalid")).toBe("true")
    await expect.poll(focusedId).toBe("invite-email")
    expect(await page.locator("#new-invitation").isVisible()).toBe(false)

    // The first owner is what the operator invites, so the form offers it first.
    expect(await page.locator("#invite-role").inputValue()).toBe("owner")
    await page.locator("#invite-email").fill(OWNER.email)
    await invite.click()
    await page.locator("#new-invitation").waitFor({ state: "visible" })
    await expect.poll(focusedId).toBe("new-invitation")
    expect(await page.locator("#invite-email-error").textContent()).toBe("")
    expect(await page.locator("#invite-email").inputValue()).toBe("")
    const acceptUrl = (await page.locator("#new-invitation-value").textContent()) ?? ""
    const { pathname, hash } = new URL(acceptUrl)
    expect(pathname).toBe("/settings")
    expect(hash).toMatch(/^#invitation=[A-Za-z0-9_-]{43}$/)
    expect(await page.locator("#new-invitation-note").textContent()).toContain(`Invited ${OWNER.email} as owner`)
    // The mail that carries the link is in the organisation's outgoing mail, listed at once.
    expect(await page.locator("#mail-table tbody").textContent()).toContain(OWNER.email)

    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
    await page.getByRole("button", { name: "Copy link" }).click()
    await expect.poll(() => page.locator("#status").textContent()).toBe("Copied to the clipboard.")
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(acceptUrl)
    await page.locator("#invite-title").scrollIntoViewIfNeeded()
    await screenshot(page, "admin-invitation", { fullPage: false })

    // Its reader, in a browser of their own, opens the link on this server and becomes the owner.
    const invited = await launch()
    try {
      const theirs = await watched(invited)
      await theirs.goto(`${server.url}/settings${hash}`)
      await theirs.locator("#accept-name").fill(OWNER.name)
      await theirs.locator("#accept-password").fill(OWNER.password)
      await theirs.getByRole("button", { name: "Accept and sign in" }).click()
      await theirs.locator("#console").waitFor({ state: "visible" })
      expect(await theirs.locator("#who").textContent()).toContain(OWNER.email)
      expect(await theirs.locator("#organisation").inputValue()).toBe(organisationId)
      await expect.poll(() => theirs.locator("#organisation-role").textContent()).toContain("owner")
      await screenshot(theirs, "admin-invitation-accepted")
    } finally {
      await invited.close()
    }
    expect((await server.person().signIn(OWNER.email, OWNER.password)).status).toBe(200)

    // Invited again, the address is refused next to its field: it belongs to the organisation now.
    await page.locator("#invite-email").fill(OWNER.email)
    await invite.click()
    await expect.poll(() => page.locator("#invite-email-error").textContent()).toContain("already belongs")
    await expect.poll(focusedId).toBe("invite-email")
    await page.locator("#invite-title").scrollIntoViewIfNeeded()
    await screenshot(page, "admin-invitation-refused", { fullPage: false })

    // Opened again, the organisation no longer shows the link, nor the refusal.
    await page.getByRole("button", { name: /Acme Browser Ltd/ }).click()
    await expect.poll(focusedId).toBe("organisation-title")
    expect(await page.locator("#new-invitation").isVisible()).toBe(false)
    expect(await page.locator("#new-invitation-value").textContent()).toBe("")
    expect(await page.locator("#invite-email-error").textContent()).toBe("")
    expect(await page.content()).not.toContain(hash.slice(1))
  })

  it("imports exchange rates, showing a refused text next to it", async () => {
    const text = page.locator("#rates-text")
    await page.locator("#rates-format").selectOption("cnb")
    await text.fill("not a rate sheet")
    await page.getByRole("button", { name: "Import rates" }).click()
    await expect.poll(() => page.locator("#rates-text-error").textContent()).toMatch(/\S/)
    expect(await text.getAttribute("aria-invalid")).toBe("true")

    await text.fill(
      ["27.11.2026 #230", "země|měna|množství|kód|kurz", "EMU|euro|1|EUR|24,335", "USA|dolar|1|USD|21,120"].join("\n")
    )
    await page.getByRole("button", { name: "Import rates" }).click()
    await expect.poll(() => page.locator("#status").textContent()).toBe("Imported 2 exchange rates.")
    expect(await page.locator("#rates-text-error").textContent()).toBe("")
  })

  it("asked nothing of any other origin and broke no rule of its policy", () => {
    expect(external).toEqual([])
    expect(pageErrors).toEqual([])
  })
})
