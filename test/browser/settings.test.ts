/**
 * `/settings` in headless Chromium, as an organisation's people use it, through the real server:
 * the operator invites an owner; the owner accepts from the link, lands signed in, makes a key
 * (shown once) that works with the REST API, subscribes a webhook and redelivers its delivery,
 * edits the settings document, and invites a member; the member accepts in a browser of their own,
 * signs in again with their password, is offered only what a member may do and is refused (by the
 * server, shown by the page) revoking the owner's key; the owner revokes the key and the API
 * refuses it; the audit shows each step with its actor. Neither page asks anything of another
 * origin or breaks its policy.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Browser,
  launch,
  NO_CHROMIUM,
  type Seen,
  screenshot,
  startPageServer,
  watchedPage
} from "../support/browser.js"
import { type Receiver, startReceiver } from "../support/receiver.js"
import type { TestServer } from "../support/server.js"

const OWNER = { email: "olga@example.com", name: "Olga Owner", password: "olga's long passphrase" }
const MEMBER = { email: "mia@example.com", name: "Mia Member", password: "mia's long passphrase" }

interface Person extends Seen {
  readonly browser: Browser
  readonly page: Page
}

/** A browser of one person's own (its own cookies), which records any request to another origin and any page error. */
const personAt = async (server: TestServer): Promise<Person> => {
  const browser = await launch()
  const seen: Seen = { external: [], errors: [] }
  const page = await watchedPage(browser, server.url, seen)
  // Revoking, removing and signing out everywhere ask first.
  page.on("dialog", (dialog) => dialog.accept())
  return { browser, page, ...seen }
}

/** The page's link for an accept URL: the fragment carries the token, the server's own origin serves it. */
const linkOf = (server: TestServer, acceptUrl: string) => {
  const { pathname, hash } = new URL(acceptUrl)
  expect(pathname).toBe("/settings")
  expect(hash).toMatch(/^#invitation=[A-Za-z0-9_-]{43}$/)
  return `${server.url}/settings${hash}`
}

const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''")

const section = async (page: Page, name: string) => {
  await page.getByRole("navigation", { name: "Settings" }).getByRole("button", { name, exact: true }).click()
}

describe.skipIf(NO_CHROMIUM !== undefined)(`/settings in Chromium${NO_CHROMIUM ? ` (${NO_CHROMIUM})` : ""}`, () => {
  let server: TestServer
  let receiver: Receiver
  let owner: Person
  let member: Person
  let organisationId = ""
  let key = ""
  let keyId = ""
  let memberLink = ""

  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startPageServer()
    owner = await personAt(server)
    member = await personAt(server)
  })
  afterAll(async () => {
    await owner?.browser.close()
    await member?.browser.close()
    await server?.close()
    await receiver?.close()
  })

  it("lets the invited owner accept from the link, taking the token out of the address, and lands signed in", async () => {
    const organisation = await server.admin.post("/organisations", { name: "Acme People Ltd" })
    expect(organisation.status).toBe(201)
    organisationId = organisation.body.id
    const invitation = await server.admin.post(`/organisations/${organisationId}/invitations`, {
      email: OWNER.email,
      role: "owner"
    })
    expect(invitation.status).toBe(201)

    const { page } = owner
    await page.goto(linkOf(server, invitation.body.accept_url))
    await page.locator("#accept").waitFor({ state: "visible" })
    // The token is gone from the address bar and the history entry at once.
    expect(page.url()).toBe(`${server.url}/settings`)
    await expect.poll(() => focusedId(page)).toBe("accept-name")

    // Refused by the page next to the field, with the focus on it.
    await page.keyboard.type(OWNER.name)
    await page.locator("#accept-password").fill("short")
    await page.getByRole("button", { name: "Accept and sign in" }).click()
    await expect.poll(() => page.locator("#accept-password-error").textContent()).toContain("10 characters")
    await expect.poll(() => focusedId(page)).toBe("accept-password")
    await screenshot(page, "settings-accept")

    await page.locator("#accept-password").fill(OWNER.password)
    await page.keyboard.press("Enter")
    await page.locator("#console").waitFor({ state: "visible" })
    expect(await page.locator("#who").textContent()).toContain(OWNER.email)
    expect(await page.locator("#organisation").inputValue()).toBe(organisationId)
    await expect.poll(() => page.locator("#organisation-role").textContent()).toContain("owner")
    await expect.poll(() => focusedId(page)).toBe("keys-title")
    // The session is a cookie the page cannot read.
    const [cookie] = await owner.browser.context.cookies()
    expect(cookie?.name).toBe("crm_session")
    expect(cookie?.httpOnly).toBe(true)
    expect(cookie?.sameSite).toBe("Lax")
    expect(await page.evaluate("document.cookie")).toBe("")
  })

  it("creates a key, shown once, that works with the REST API and shows its last use", async () => {
    const { page } = owner
    await page.getByText("Create a key").click()
    await page.locator("#key-name").fill("integration")
    await page.getByLabel("read", { exact: true }).check()
    await page.getByLabel("write", { exact: true }).check()
    // The owner is offered every scope.
    expect(await page.getByLabel("invoices:write", { exact: true }).isVisible()).toBe(true)
    await page.getByRole("button", { name: "Create key" }).click()
    await page.locator("#new-key").waitFor({ state: "visible" })
    await expect.poll(() => focusedId(page)).toBe("new-key")
    key = (await page.locator("#new-key-value").textContent()) ?? ""
    expect(key).toMatch(/^\S{20,}$/)
    const row = page.locator("#key-table tbody tr", { hasText: "integration" })
    await row.waitFor()
    keyId = (await row.getAttribute("data-key-id")) ?? ""
    expect(await row.textContent()).toContain("You")
    expect(await row.textContent()).toContain("Never")
    expect(await row.textContent()).not.toContain(key)
    await screenshot(page, "settings-key-created")

    const created = await fetch(`${server.url}/api/v1/contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ first_name: "Ada", email: "ada@example.com" })
    })
    expect(created.status).toBe(201)
    expect((await fetch(`${server.url}/api/v1/contacts`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      200
    )

    // Its last use is written beside the request, not in its way: the list shows it once written.
    await expect
      .poll(async () => {
        await section(page, "API keys")
        return page.locator(`#key-table tbody tr[data-key-id="${keyId}"] td`).nth(2).textContent()
      })
      .not.toBe("Never")
  })

  it("subscribes a webhook for the key, shows its delivery, redelivers it, turns it off and on", async () => {
    const { page } = owner
    await page.getByRole("button", { name: "Webhooks of integration" }).click()
    await page.locator("#hooks").waitFor({ state: "visible" })
    await expect.poll(() => focusedId(page)).toBe("hooks-title")
    expect(await page.locator("#hook-key").inputValue()).toBe(keyId)
    await page.getByText("Subscribe to events").click()
    await page.locator("#hook-target").fill(receiver.url)
    await page.getByLabel("contact.created", { exact: true }).check()
    await page.getByRole("button", { name: "Subscribe" }).click()
    await page.locator("#new-secret").waitFor({ state: "visible" })
    expect(await page.locator("#new-secret-value").textContent()).toMatch(/^whsec_/)
    const hookRow = page.locator("#hook-table tbody tr", { hasText: receiver.url })
    await hookRow.waitFor()

    const contact = await fetch(`${server.url}/api/v1/contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ first_name: "Grace", email: "grace@example.com" })
    })
    expect(contact.status).toBe(201)
    await receiver.arrived(1)

    await hookRow.getByRole("button", { name: `Deliveries to ${receiver.url}` }).click()
    const delivery = page.locator("#delivery-table tbody tr", { hasText: "contact.created" })
    await expect
      .poll(async () => {
        await page.getByRole("button", { name: "Refresh deliveries" }).click()
        return delivery.textContent()
      })
      .toContain("succeeded")
    await delivery.getByRole("button", { name: "Redeliver contact.created" }).click()
    await expect.poll(() => page.locator("#status").textContent()).toContain("queued again")
    await receiver.arrived(2)

    await hookRow.getByRole("button", { name: `Turn off ${receiver.url}` }).click()
    await expect.poll(() => hookRow.textContent()).toContain("Off")
    await hookRow.getByRole("button", { name: `Turn on ${receiver.url}` }).click()
    await expect.poll(() => hookRow.textContent()).toContain("Active")
    await hookRow.getByRole("button", { name: `Rotate the secret of ${receiver.url}` }).click()
    await expect.poll(() => page.locator("#new-secret-note").textContent()).toContain("previous one")
    await screenshot(page, "settings-webhooks")
  })

  it("shows what the settings document refuses beside it, and saves a valid one", async () => {
    const { page } = owner
    await section(page, "Pipelines and fields")
    await expect.poll(() => focusedId(page)).toBe("pipelines-title")
    expect(await page.locator("#pipeline-list").textContent()).not.toBe("")
    const editor = page.locator("#settings")
    const document = JSON.parse(await editor.inputValue())
    await editor.fill(JSON.stringify({ ...document, default_currency: "euro" }, null, 2))
    await page.getByRole("button", { name: "Save settings" }).click()
    await expect.poll(() => page.locator("#settings-issues").textContent()).toContain("default_currency")
    expect(await editor.getAttribute("aria-invalid")).toBe("true")
    await expect.poll(() => focusedId(page)).toBe("settings-issues")
    await screenshot(page, "settings-pipelines")

    await editor.fill(JSON.stringify({ ...document, default_currency: "CZK" }, null, 2))
    await page.getByRole("button", { name: "Save settings" }).click()
    await expect.poll(() => page.locator("#status").textContent()).toBe("Settings saved.")
    expect(await page.locator("#settings-issues").textContent()).toBe("")
  })

  it("invites a member, showing the link once and the invitation pending", async () => {
    const { page } = owner
    // The sections are reached with the keyboard, the focus going to the section's heading.
    await page.getByRole("navigation", { name: "Settings" }).getByRole("button", { name: "People" }).focus()
    await page.keyboard.press("Enter")
    await expect.poll(() => focusedId(page)).toBe("people-title")
    expect(
      await page
        .getByRole("navigation", { name: "Settings" })
        .getByRole("button", { name: "People" })
        .getAttribute("aria-current")
    ).toBe("page")
    const owners = page.locator("#member-table tbody tr", { hasText: OWNER.email })
    expect(await owners.textContent()).toContain("(you)")
    await page.locator("#invite-email").fill(MEMBER.email)
    await page.locator("#invite-role").selectOption("member")
    await page.getByRole("button", { name: "Send invitation" }).click()
    await page.locator("#new-invitation").waitFor({ state: "visible" })
    memberLink = linkOf(server, (await page.locator("#new-invitation-value").textContent()) ?? "")
    const pending = page.locator("#invitation-table tbody tr", { hasText: MEMBER.email })
    expect(await pending.textContent()).toContain("pending")
    await screenshot(page, "settings-people")
  })

  it("lets the member accept, sign out, sign in with their password, and offers only what a member may do", async () => {
    const { page } = member
    await page.goto(memberLink)
    await page.locator("#accept-name").fill(MEMBER.name)
    await page.locator("#accept-password").fill(MEMBER.password)
    await page.getByRole("button", { name: "Accept and sign in" }).click()
    await page.locator("#console").waitFor({ state: "visible" })

    await page.locator("#sign-out").click()
    await page.locator("#sign-in").waitFor({ state: "visible" })
    expect(await page.locator("#sign-in-note").textContent()).toContain("signed out")
    await page.locator("#sign-in-email").fill(MEMBER.email)
    await page.locator("#sign-in-password").fill("not the password at all")
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    const refusal = page.locator("#sign-in-form .form-error")
    await expect.poll(() => refusal.textContent()).toContain("do not match")
    await expect.poll(() => focusedId(page)).toBe("")
    expect(await page.evaluate("document.activeElement?.classList.contains('form-error')")).toBe(true)
    await page.locator("#sign-in-password").fill(MEMBER.password)
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    await page.locator("#console").waitFor({ state: "visible" })
    await expect.poll(() => page.locator("#organisation-role").textContent()).toContain("member")

    // A member sees the keys but may revoke none of the owner's; the audit is not theirs to read.
    const ownerKey = page.locator(`#key-table tbody tr[data-key-id="${keyId}"]`)
    await ownerKey.waitFor()
    expect(await ownerKey.textContent()).toContain(OWNER.name)
    expect(await ownerKey.getByRole("button", { name: "Revoke integration" }).count()).toBe(0)
    expect(await page.getByRole("button", { name: "Audit", exact: true }).isVisible()).toBe(false)
    // Their keys may hold read and write only.
    await page.getByText("Create a key").click()
    expect(await page.getByLabel("read", { exact: true }).isVisible()).toBe(true)
    expect(await page.getByLabel("invoices:write", { exact: true }).isVisible()).toBe(false)
    await screenshot(page, "settings-member")

    // The server refuses it too, asked directly with the member's session.
    const refused = await page.evaluate(
      async ([organisation, id]) => {
        const session = (await (await fetch("/auth/v1/session")).json()) as { csrf_token: string }
        const answer = await fetch(`/settings/v1/organisations/${organisation}/keys/${id}`, {
          method: "DELETE",
          headers: { "x-csrf-token": session.csrf_token }
        })
        return { status: answer.status, error: ((await answer.json()) as { error: string }).error }
      },
      [organisationId, keyId] as const
    )
    expect(refused).toEqual({ status: 403, error: "forbidden" })
  })

  it("shows the server's refusal when the member's role changed under an open page", async () => {
    // The owner makes Mia an admin; her page, reloaded, offers revoking the owner's key.
    await section(owner.page, "People")
    const mia = owner.page.locator("#member-table tbody tr", { hasText: MEMBER.email })
    await mia.getByLabel(`Role of ${MEMBER.name}`, { exact: true }).selectOption("admin")
    await mia.getByRole("button", { name: `Change the role of ${MEMBER.name}` }).click()
    await expect.poll(() => owner.page.locator("#status").textContent()).toContain("is now admin")

    const { page } = member
    await page.reload()
    const ownerKey = page.locator(`#key-table tbody tr[data-key-id="${keyId}"]`)
    const revoke = ownerKey.getByRole("button", { name: "Revoke integration" })
    await revoke.waitFor()

    // Back to member while her page still offers it: the server refuses, the page says so and redraws.
    await mia.getByLabel(`Role of ${MEMBER.name}`, { exact: true }).selectOption("member")
    await mia.getByRole("button", { name: `Change the role of ${MEMBER.name}` }).click()
    await expect.poll(() => owner.page.locator("#status").textContent()).toContain("is now member")

    await revoke.click()
    const alert = page.locator("#keys .alert")
    await expect.poll(() => alert.textContent()).toContain("does not allow")
    expect(await page.evaluate("document.activeElement?.classList.contains('alert')")).toBe(true)
    await expect.poll(() => ownerKey.getByRole("button", { name: "Revoke integration" }).count()).toBe(0)
    await expect.poll(() => page.locator("#organisation-role").textContent()).toContain("member")
    await screenshot(page, "settings-member-refused")
    expect((await server.as(key).get("/me")).status).toBe(200)
  })

  it("revokes the key as the owner, which the API then refuses", async () => {
    const { page } = owner
    await section(page, "API keys")
    const row = page.locator(`#key-table tbody tr[data-key-id="${keyId}"]`)
    await row.getByRole("button", { name: "Revoke integration" }).click()
    await expect.poll(() => row.textContent()).toContain("Revoked")
    expect((await server.as(key).get("/me")).status).toBe(401)
    expect(await page.content()).not.toContain(key)
  })

  it("shows each step in the audit with its actor", async () => {
    const { page } = owner
    await section(page, "Audit")
    await expect.poll(() => focusedId(page)).toBe("audit-title")
    const entry = (action: string, actor: string) =>
      page.locator(`#audit-table tbody tr[data-action="${action}"]`, { hasText: actor })
    const steps: ReadonlyArray<readonly [string, string]> = [
      ["invitation.created", "The operator"],
      ["invitation.accepted", OWNER.email],
      ["key.created", OWNER.email],
      ["hook.created", OWNER.email],
      ["hook.redelivered", OWNER.email],
      ["hook.secret_rotated", OWNER.email],
      ["settings.replaced", OWNER.email],
      ["invitation.created", OWNER.email],
      ["invitation.accepted", MEMBER.email],
      ["user.signed_out", MEMBER.email],
      ["sign_in.failed", MEMBER.email],
      ["user.signed_in", MEMBER.email],
      ["member.role_changed", OWNER.email],
      ["key.revoked", OWNER.email]
    ]
    for (const [action, actor] of steps) {
      expect(await entry(action, actor).count(), `${action} by ${actor}`).toBeGreaterThan(0)
    }
    // Newest first: the revocation heads the trail.
    expect(await page.locator("#audit-table tbody tr").first().getAttribute("data-action")).toBe("key.revoked")
    // A summary never holds a secret.
    const trail = (await page.locator("#audit-table").textContent()) ?? ""
    expect(trail).not.toContain(key)
    expect(trail).not.toContain(OWNER.password)
    await screenshot(page, "settings-audit")
  })

  it("lists the person's sessions, ends another, and signs out everywhere", async () => {
    const { page } = member
    await section(page, "My sessions")
    const rows = page.locator("#session-table tbody tr")
    // The accepting session ended at sign-out; the one signed in with the password is this one.
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain("This session")
    expect(await rows.first().textContent()).toContain("Chrome")

    // Signed in elsewhere too (a script, named as its client names itself): listed, and ended from here.
    const elsewhere = await fetch(`${server.url}/auth/v1/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: MEMBER.email, password: MEMBER.password })
    })
    expect(elsewhere.status).toBe(200)
    const cookie = (elsewhere.headers.get("set-cookie") ?? "").split(";")[0]!
    const other = rows.filter({ hasNotText: "This session" })
    await expect
      .poll(async () => {
        await section(page, "My sessions")
        return other.count()
      })
      .toBe(1)
    await screenshot(page, "settings-sessions")
    expect(await other.textContent()).not.toContain("Chrome")
    await other.getByRole("button", { name: /^End the session of / }).click()
    await expect.poll(() => rows.count()).toBe(1)
    expect((await fetch(`${server.url}/auth/v1/session`, { headers: { cookie } })).status).toBe(401)

    await page.getByRole("button", { name: "Sign out everywhere" }).click()
    await page.locator("#sign-in").waitFor({ state: "visible" })
    expect(await page.locator("#sign-in-note").textContent()).toContain("signed out everywhere")
    expect(await member.browser.context.cookies()).toEqual([])
  })

  it("handles mailed links: a used or unknown one is explained, a link asked for is promised without telling who has an account", async () => {
    const { page } = member
    await page.goto(`${server.url}/settings#sign-in=${"x".repeat(43)}`)
    await expect.poll(() => page.locator("#sign-in-note").textContent()).toContain("expired")
    expect(page.url()).toBe(`${server.url}/settings`)

    await page.goto(`${server.url}/settings#reset=${"y".repeat(43)}`)
    await page.locator("#reset").waitFor({ state: "visible" })
    await page.locator("#reset-password").fill("a brand new passphrase")
    await page.getByRole("button", { name: "Set password and sign in" }).click()
    await expect.poll(() => page.locator("#reset-form .form-error").textContent()).toContain("expired")

    await page.goto(`${server.url}/settings`)
    await page.locator("#sign-in-email").fill("nobody@example.com")
    await page.getByRole("button", { name: "Email me a sign-in link" }).click()
    await expect
      .poll(() => page.locator("#sign-in-note").textContent())
      .toContain("If nobody@example.com has an account")
    await screenshot(page, "settings-sign-in")
  })

  it("sends a person whose session ended elsewhere back to the sign-in form, saying so", async () => {
    // The owner signs out everywhere from another device.
    const elsewhere = await fetch(`${server.url}/auth/v1/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: OWNER.email, password: OWNER.password })
    })
    const { csrf_token } = (await elsewhere.json()) as { csrf_token: string }
    const signedOut = await fetch(`${server.url}/auth/v1/sign-out`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie: (elsewhere.headers.get("set-cookie") ?? "").split(";")[0]!,
        "x-csrf-token": csrf_token
      },
      body: JSON.stringify({ everywhere: true })
    })
    expect(signedOut.status).toBe(204)

    const { page } = owner
    await section(page, "People")
    await page.locator("#sign-in").waitFor({ state: "visible" })
    expect(await page.locator("#sign-in-note").textContent()).toContain("session has ended")
    await expect.poll(() => focusedId(page)).toBe("sign-in-note")
    expect(await page.locator("#console").isVisible()).toBe(false)
  })

  it("asked nothing of any other origin and broke no rule of its policy", () => {
    for (const person of [owner, member]) {
      expect(person.external).toEqual([])
      expect(person.errors).toEqual([])
    }
  })
})
