/**
 * Answers the consent screen refuses: scopes beyond the person's role, an organisation not
 * theirs, a form posted without the session's CSRF token or from another site, a wrong password,
 * and an answer posted again. None connects anything (the organisation's Connected apps stay
 * empty) or sends a code to the client; denying sends the client `access_denied`.
 */

import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Joined, join, PASSWORD, withOwner } from "../support/people.js"
import { startServer, type TestServer } from "../support/server.js"
import {
  authorizationQuery,
  type ConsentScreen,
  consentForm,
  consentScreen,
  FormBrowser,
  pkce,
  type Registered,
  registered
} from "./support.js"

describe("the consent screen", () => {
  let server: TestServer
  let client: Registered
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer)
    client = await registered(server)
  })
  afterAll(() => server?.close())

  /** A person's browser on the consent screen of a request for `scope`. */
  const screenOf = async (person: Joined, scope = "read write") => {
    const browser = new FormBrowser(server, person.person.cookie())
    const screen = await consentScreen(browser, authorizationQuery(server, client, pkce().challenge, { scope }))
    expect(screen.page.status).toBe(200)
    expect(screen.csrf).toBeTypeOf("string")
    return { browser, screen }
  }

  const appsOf = async (owner: Joined & { organisation: any }) => {
    const apps = await owner.person.settings(owner.organisation.id).get("/apps")
    expect(apps.status).toBe(200)
    return apps.body.data
  }

  const allow = (screen: ConsentScreen, organisation: string, scope: ReadonlyArray<string>) =>
    consentForm({ csrf_token: screen.csrf!, organisation, scope, action: "allow" })

  it("holds a member to read and write, and connects them with those", async () => {
    const owner = await withOwner(server, "Members' org")
    const member = await join(server, owner.organisation.id, "member")
    const { browser, screen } = await screenOf(member, "read write quotes:write")
    expect(screen.page.text).toContain("you may give read and write only")

    const beyond = await browser.request("POST", screen.path, allow(screen, owner.organisation.id, ["quotes:write"]))
    expect(beyond.status).toBe(400)
    expect(beyond.location).toBeUndefined()
    expect(beyond.text).toContain("a member may give only read and write")
    expect(beyond.text).toContain('name="csrf_token"')
    const mixed = await browser.request(
      "POST",
      screen.path,
      allow(screen, owner.organisation.id, ["read", "write", "quotes:write"])
    )
    expect(mixed.status).toBe(400)
    expect(mixed.text).toContain("a member may give only read and write")
    expect(await appsOf(owner)).toEqual([])

    const allowed = await browser.follow(
      await browser.request("POST", screen.path, allow(screen, owner.organisation.id, ["read", "write"]))
    )
    expect(allowed.location?.searchParams.get("code")).toBeTypeOf("string")
    const apps = await appsOf(owner)
    expect(apps).toHaveLength(1)
    expect(apps[0]).toMatchObject({ client_id: client.client_id, scopes: ["read", "write"], created_by: member.userId })
  })

  it("refuses an organisation the person does not belong to", async () => {
    const owner = await withOwner(server, "Own org")
    const other = await withOwner(server, "Someone else's org")
    const { browser, screen } = await screenOf(owner)
    const answered = await browser.request("POST", screen.path, allow(screen, other.organisation.id, ["read"]))
    expect(answered.status).toBe(400)
    expect(answered.location).toBeUndefined()
    expect(answered.text).toContain("Choose one of your organisations.")
    expect(await appsOf(other)).toEqual([])
    expect(await appsOf(owner)).toEqual([])
  })

  it("refuses an answer without the session's CSRF token, or with another", async () => {
    const owner = await withOwner(server, "Forged org")
    const { browser, screen } = await screenOf(owner)
    const { csrf_token: _token, ...forged } = Object.fromEntries(allow(screen, owner.organisation.id, ["read"]))
    const without = await browser.request("POST", screen.path, consentForm({ ...forged, scope: ["read", "write"] }))
    expect(without.status).toBe(403)
    expect(without.location).toBeUndefined()
    const wrong = await browser.request(
      "POST",
      screen.path,
      consentForm({ ...forged, csrf_token: "not-the-sessions-token", scope: ["read", "write"] })
    )
    expect(wrong.status).toBe(403)
    expect(await appsOf(owner)).toEqual([])
  })

  it("refuses an answer posted from another site, even with the token", async () => {
    const owner = await withOwner(server, "Cross-site org")
    const { browser, screen } = await screenOf(owner)
    const answered = await browser.request("POST", screen.path, allow(screen, owner.organisation.id, ["read"]), {
      origin: "https://attacker.example"
    })
    expect(answered.status).toBe(403)
    expect(answered.location).toBeUndefined()
    expect(await appsOf(owner)).toEqual([])
  })

  it("sends the client access_denied when the person denies, and connects nothing", async () => {
    const owner = await withOwner(server, "Denying org")
    const { browser, screen } = await screenOf(owner)
    const denied = await browser.follow(
      await browser.request(
        "POST",
        screen.path,
        consentForm({ csrf_token: screen.csrf!, organisation: owner.organisation.id, action: "deny" })
      )
    )
    expect(`${denied.location?.origin}${denied.location?.pathname}`).toBe(client.redirect)
    expect(denied.location?.searchParams.get("error")).toBe("access_denied")
    expect(denied.location?.searchParams.get("state")).toBe("the-client-state")
    expect(denied.location?.searchParams.get("code")).toBeNull()
    expect(await appsOf(owner)).toEqual([])
  })

  it("takes an answer once: posted again it connects nothing more", async () => {
    const owner = await withOwner(server, "Twice org")
    const { browser, screen } = await screenOf(owner)
    const form = allow(screen, owner.organisation.id, ["read"])
    const first = await browser.follow(await browser.request("POST", screen.path, form))
    expect(first.location?.searchParams.get("code")).toBeTypeOf("string")
    const again = await browser.follow(await browser.request("POST", screen.path, form))
    expect(again.status).toBe(400)
    expect(again.location).toBeUndefined()
    expect(await appsOf(owner)).toHaveLength(1)
  })

  it("takes the answer only from the browser the request started in", async () => {
    const owner = await withOwner(server, "Other browser org")
    const { screen } = await screenOf(owner)
    // The same person's session and token, in a browser without the request's interaction cookie.
    const elsewhere = new FormBrowser(server, owner.person.cookie())
    const shown = await elsewhere.request("GET", screen.path)
    expect(shown.status).toBe(400)
    expect(shown.text).toContain("This request has ended")
    const answered = await elsewhere.request("POST", screen.path, allow(screen, owner.organisation.id, ["read"]))
    expect(answered.status).toBe(400)
    expect(answered.location).toBeUndefined()
    expect(await appsOf(owner)).toEqual([])
  })

  it("does not sign in with a wrong password", async () => {
    const owner = await withOwner(server, "Password org")
    const browser = new FormBrowser(server)
    const screen = await consentScreen(browser, authorizationQuery(server, client, pkce().challenge))
    expect(screen.page.text).toContain("Sign in to connect an app")
    const wrong = await browser.request(
      "POST",
      screen.path,
      consentForm({ action: "sign-in", email: owner.email, password: `${PASSWORD}!` })
    )
    expect(wrong.status).toBe(400)
    expect(wrong.text).toContain("The email or the password is not right.")
    expect(wrong.headers.getSetCookie().some((cookie) => cookie.startsWith("crm_session="))).toBe(false)
    // Still signed out: the screen asks to sign in again.
    const shown = await browser.request("GET", screen.path)
    expect(shown.text).toContain("Sign in to connect an app")
    expect(await appsOf(owner)).toEqual([])
  })
})
