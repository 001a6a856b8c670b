/**
 * An organisation's people through the real server, as they would use it: the operator invites an
 * owner, who accepts, signs in, makes a key and uses it, invites a member, who signs in and is held
 * to their role; then signing in throttled, invitations expired, reused and revoked, sessions
 * listed, ended and expired, writes from another site refused, and what the log and the cookie say.
 *
 * The suites trust the loopback proxy, so that a test poses as a client of its own address with
 * `X-Forwarded-For`: the sign-in throttle counts per address, and one test's failures must not
 * throttle another's.
 */
import { People } from "@crm/core"
import * as Effect from "effect/Effect"
import { describe, expect, it, vi } from "vitest"
import { clockAt } from "../support/clock.js"
import { collector } from "../support/log.js"
import { join, PASSWORD, uniqueEmail, withOwner } from "../support/people.js"
import { type Person, startServer, type TestServer, tokenOf } from "../support/server.js"
import { memory } from "../support/storages.js"
import { onEveryStore } from "../support/suite.js"

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR
const TOKEN = /^[A-Za-z0-9_-]{43}$/
const SET_COOKIE = /^crm_session=([A-Za-z0-9_-]{43}); Path=\/; HttpOnly; SameSite=Lax; Max-Age=1209600$/
const CLEARED = "crm_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"

/** What a refused sign-in must and must not carry: kept by no cache, and no cookie. */
const limitedHeaders = (response: { readonly headers: Headers }) => ({
  "cache-control": response.headers.get("cache-control"),
  "set-cookie": response.headers.get("set-cookie")
})

/** A client address of the test's own, as the trusted loopback proxy forwards it. */
let addresses = 0
const fromAddress = () => ({ "x-forwarded-for": `198.51.100.${++addresses}` })

/** The audit trail oldest first, as (action, actor kind, actor label) triples. */
const trailOf = async (owner: Person, organisationId: string) => {
  const page = await owner.settings(organisationId).get("/audit?limit=200")
  expect(page.status).toBe(200)
  return [...page.body.data].reverse()
}

/**
 * The trail is exactly these steps (action, actor kind, actor label), in this order of time. Steps
 * of one unit of work share their time, and the trail orders those by id, so they may come either way.
 */
const expectSteps = (trail: ReadonlyArray<any>, steps: ReadonlyArray<readonly [string, string, string]>) => {
  const left = [...trail]
  let last = ""
  for (const [action, kind, label] of steps) {
    const index = left.findIndex(
      (entry) => entry.action === action && entry.actor.kind === kind && entry.actor.label === label
    )
    expect(index, `${action} by ${label}`).toBeGreaterThanOrEqual(0)
    const [entry] = left.splice(index, 1)
    expect(entry.at >= last, `${action} by ${label} at ${entry.at}, after ${last}`).toBe(true)
    last = entry.at
  }
  expect(left).toEqual([])
}

/** A person signed in through the service itself, at a time of the test's choosing. */
const signedInAt = (server: TestServer, email: string, ms: number) =>
  server.run(
    Effect.flatMap(People.People, (people) =>
      people.signIn({ email, password: PASSWORD }, { address: "198.51.100.250", device: "Past Browser" })
    ).pipe(Effect.withClock(clockAt(ms)))
  )

onEveryStore(
  "people",
  (server) => {
    it("as people would: invited owner, a key used, a member held to their role, a key revoked, all in the audit", async () => {
      const created = await server().admin.post("/organisations", { name: "Acme" })
      const organisationId: string = created.body.id

      // The operator invites the first owner; the link is in the answer (and the mail) only.
      const invited = await server().admin.post(`/organisations/${organisationId}/invitations`, {
        email: " Olga@Example.COM ",
        role: "owner"
      })
      expect(invited.status).toBe(201)
      expect(invited.body).toMatchObject({
        organisation_id: organisationId,
        email: "olga@example.com",
        role: "owner",
        status: "pending",
        invited_by: "operator"
      })
      expect(Date.parse(invited.body.expires_at) - Date.parse(invited.body.created_at)).toBe(7 * DAY)
      expect(invited.body.accept_url).toMatch(/\/settings#invitation=[A-Za-z0-9_-]{43}$/)
      const invitationToken = tokenOf(invited.body.accept_url, "invitation")

      // She accepts: her name and password set, a session begun in her browser.
      const olga = server().person()
      const accepted = await olga.accept(invitationToken, "Olga Owner", PASSWORD)
      expect(accepted.status).toBe(200)
      expect(accepted.headers.get("set-cookie")).toMatch(SET_COOKIE)
      expect(accepted.headers.get("cache-control")).toBe("no-store")
      expect(accepted.body).toMatchObject({
        user: { email: "olga@example.com", name: "Olga Owner" },
        organisations: [{ id: organisationId, name: "Acme", role: "owner" }]
      })
      expect(accepted.body.csrf_token).toMatch(TOKEN)
      expect(accepted.text).not.toContain(olga.cookie()!.slice("crm_session=".length))
      const olgaId = accepted.body.user.id

      const session = await olga.auth.get("/session")
      expect(session.status).toBe(200)
      expect(session.headers.get("cache-control")).toBe("no-store")
      expect(session.body).toEqual({
        ...accepted.body,
        session: { ...accepted.body.session, expires_at: expect.any(String) }
      })

      // She makes a key in the settings and uses it with the REST API.
      const settings = olga.settings(organisationId)
      const key = await settings.post("/keys", { name: "Olga's integration", scopes: ["read", "write"] })
      expect(key.status).toBe(201)
      const api = server().as(key.body.key)
      expect((await api.post("/contacts", { first_name: "Ada", last_name: "Lovelace" })).status).toBe(201)
      expect((await api.get("/contacts")).body.data).toHaveLength(1)
      // The list says who made it and, soon after, when it was used (written aside, not in the request).
      await vi.waitFor(async () => {
        const listed = (await settings.get("/keys")).body.data.find((row: any) => row.id === key.body.id)
        expect(listed).toMatchObject({ created_by: olgaId, last_used_at: expect.any(String) })
      })

      // She invites a member, who accepts and later signs in again in another browser.
      const invitation = await settings.post("/invitations", { email: "mia@example.com", role: "member" })
      expect(invitation.status).toBe(201)
      expect(invitation.body).toMatchObject({ role: "member", invited_by: "olga@example.com", status: "pending" })
      const miaFirst = server().person()
      const joined = await miaFirst.accept(tokenOf(invitation.body.accept_url, "invitation"), "Mia Member", PASSWORD)
      expect(joined.status).toBe(200)
      expect(joined.body.organisations).toEqual([{ id: organisationId, name: "Acme", role: "member" }])
      const mia = server().person()
      const signedIn = await mia.signIn("MIA@example.com", PASSWORD)
      expect(signedIn.status).toBe(200)
      expect(signedIn.headers.get("set-cookie")).toMatch(SET_COOKIE)
      // A new session, with a token of its own, at every sign-in.
      expect(mia.cookie()).not.toBe(miaFirst.cookie())
      expect(signedIn.body.session.id).not.toBe(joined.body.session.id)

      // The member sees the keys but may not revoke the owner's, nor give her own key more than read and write.
      const miaSettings = mia.settings(organisationId)
      expect((await miaSettings.get("/keys")).status).toBe(200)
      const refused = await miaSettings.delete(`/keys/${key.body.id}`)
      expect(refused.status).toBe(403)
      expect(refused.body.error).toBe("forbidden")
      const tooMuch = await miaSettings.post("/keys", { name: "quotes", scopes: ["read", "quotes:write"] })
      expect(tooMuch.status).toBe(403)
      expect(tooMuch.body.error).toBe("scope_not_allowed")
      const own = await miaSettings.post("/keys", { name: "Mia's", scopes: ["read"] })
      expect(own.status).toBe(201)
      expect((await miaSettings.get("/audit")).body.error).toBe("forbidden")

      // The owner revokes her key: the next request with it is refused.
      expect((await settings.delete(`/keys/${key.body.id}`)).status).toBe(204)
      const after = await api.get("/contacts")
      expect(after.status).toBe(401)
      // The member revokes the key she made.
      expect((await miaSettings.delete(`/keys/${own.body.id}`)).status).toBe(204)

      const trail = await trailOf(olga, organisationId)
      expectSteps(trail, [
        ["organisation.created", "operator", "operator"],
        ["invitation.created", "operator", "operator"],
        ["invitation.accepted", "user", "olga@example.com"],
        ["user.signed_in", "user", "olga@example.com"],
        ["key.created", "user", "olga@example.com"],
        ["invitation.created", "user", "olga@example.com"],
        ["invitation.accepted", "user", "mia@example.com"],
        ["user.signed_in", "user", "mia@example.com"],
        ["user.signed_in", "user", "mia@example.com"],
        ["key.created", "user", "mia@example.com"],
        ["key.revoked", "user", "olga@example.com"],
        ["key.revoked", "user", "mia@example.com"]
      ])
      expect(trail.find((entry) => entry.action === "key.revoked")).toMatchObject({
        actor: { id: olgaId },
        target: { kind: "key", id: key.body.id },
        address: "127.0.0.1"
      })
      // The trail never holds a secret: not the key, the password, a token or the CSRF token.
      const text = JSON.stringify(trail)
      for (const secret of [key.body.key, PASSWORD, invitationToken, olga.cookie()!.slice(12), olga.csrfToken()!]) {
        expect(text).not.toContain(secret)
      }
    })

    it("throttles failed sign-ins per account and per address, answering an unknown address the same", async () => {
      const { organisation, email, person: owner } = await withOwner(server())
      const known = fromAddress()
      const answers: Array<{ status: number; body: unknown }> = []
      for (let attempt = 0; attempt < 10; attempt++) {
        const wrong = await server()
          .person()
          .auth.post("/sign-in", { email, password: `wrong ${attempt}` }, known)
        answers.push({ status: wrong.status, body: { error: wrong.body.error, detail: wrong.body.detail } })
        expect(limitedHeaders(wrong)).toEqual({ "cache-control": "no-store", "set-cookie": null })
      }
      expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1)
      expect(answers[0]).toMatchObject({ status: 401, body: { error: "invalid_credentials" } })
      // The eleventh is refused before the password is looked at: the right one too.
      const limited = await server().person().auth.post("/sign-in", { email, password: PASSWORD }, known)
      expect(limited.status).toBe(429)
      expect(limited.body.error).toBe("rate_limited")
      expect(limitedHeaders(limited)).toEqual({ "cache-control": "no-store", "set-cookie": null })
      const retryAfter = Number(limited.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(15 * 60)
      // The account is throttled from any address.
      expect((await server().person().auth.post("/sign-in", { email, password: PASSWORD }, fromAddress())).status).toBe(
        429
      )

      // An address no account has: the same answers, in the same order.
      const unknown = uniqueEmail("nobody")
      const stranger = fromAddress()
      for (let attempt = 0; attempt < 10; attempt++) {
        const wrong = await server()
          .person()
          .auth.post("/sign-in", { email: unknown, password: `wrong ${attempt}` }, stranger)
        expect({ status: wrong.status, body: { error: wrong.body.error, detail: wrong.body.detail } }).toEqual(
          answers[0]
        )
      }
      const unknownLimited = await server()
        .person()
        .auth.post("/sign-in", { email: unknown, password: PASSWORD }, stranger)
      expect(unknownLimited.status).toBe(429)
      expect(unknownLimited.body.detail).toBe(limited.body.detail)

      // Ten failures from one address, each for another account, throttle that address for everyone.
      const noisy = fromAddress()
      for (let attempt = 0; attempt < 10; attempt++) {
        const wrong = await server()
          .person()
          .auth.post("/sign-in", { email: uniqueEmail("guess"), password: "x" }, noisy)
        expect(wrong.status).toBe(401)
      }
      const someoneElse = await join(server(), organisation.id, "member")
      expect(
        (await server().person().auth.post("/sign-in", { email: someoneElse.email, password: PASSWORD }, noisy)).status
      ).toBe(429)
      expect(
        (await server().person().auth.post("/sign-in", { email: someoneElse.email, password: PASSWORD }, fromAddress()))
          .status
      ).toBe(200)

      // The organisation's trail has its own account's failures, and none of an unknown address.
      // (The owner's session, begun before, is not throttled: only signing in is.)
      const trail = await trailOf(owner, organisation.id)
      const failed = trail.filter((entry) => entry.action === "sign_in.failed")
      expect(failed).toHaveLength(10)
      for (const entry of failed) {
        expect(entry).toMatchObject({
          actor: { kind: "anonymous" },
          summary: { email },
          address: known["x-forwarded-for"]
        })
      }
      expect(JSON.stringify(trail)).not.toContain(unknown)
    })

    it("refuses an invitation that expired, was used or was revoked, and a token that names none (410)", async () => {
      const { organisation, person: owner } = await withOwner(server())
      // Made eight days ago, by the server's own service under a clock set back.
      const old = await server().run(
        Effect.flatMap(People.People, (people) =>
          people.invite(organisation.id, { email: uniqueEmail("late"), role: "member" }, People.operator(null))
        ).pipe(Effect.withClock(clockAt(Date.now() - 8 * DAY)))
      )
      const late = await server().person().accept(tokenOf(old.accept_url, "invitation"), "Late", PASSWORD)
      expect(late.status).toBe(410)
      expect(late.body.error).toBe("invalid_link")
      expect(late.headers.get("set-cookie")).toBeNull()
      const listed = await owner.settings(organisation.id).get("/invitations")
      expect(listed.body.data.find((row: any) => row.id === old.id)).toMatchObject({ status: "expired" })

      // Used once, then again from another browser.
      const { token } = await server().invite(organisation.id, uniqueEmail("twice"), "member")
      expect((await server().person().accept(token, "First", PASSWORD)).status).toBe(200)
      const again = await server().person().accept(token, "Second", "another password entirely")
      expect(again.status).toBe(410)
      expect(again.body.error).toBe("invalid_link")

      // Revoked by the owner before it was used.
      const revoked = await server().invite(organisation.id, uniqueEmail("revoked"), "member")
      expect((await owner.settings(organisation.id).delete(`/invitations/${revoked.invitation.id}`)).status).toBe(204)
      expect((await server().person().accept(revoked.token, "Too late", PASSWORD)).status).toBe(410)

      for (const bogus of ["nope", "A".repeat(43), `${token.slice(0, -1)}A`]) {
        expect((await server().person().accept(bogus, "Nobody", PASSWORD)).status).toBe(410)
      }
    })

    it("lists a person's sessions, ends one from another, signs out and out everywhere", async () => {
      const { organisation, email } = await withOwner(server())
      const laptop = server().person()
      const phone = server().person()
      expect(
        (await laptop.auth.post("/sign-in", { email, password: PASSWORD }, { "user-agent": "Laptop Browser" })).status
      ).toBe(200)
      expect(
        (await phone.auth.post("/sign-in", { email, password: PASSWORD }, { "user-agent": "Phone Browser" })).status
      ).toBe(200)

      const listed = await laptop.auth.get("/sessions")
      expect(listed.status).toBe(200)
      const byDevice = new Map(listed.body.data.map((view: any) => [view.device, view]))
      expect(byDevice.get("Laptop Browser")).toMatchObject({ current: true, address: "127.0.0.1" })
      expect(byDevice.get("Phone Browser")).toMatchObject({ current: false })
      const phoneSession: any = byDevice.get("Phone Browser")

      // The laptop ends the phone's session: the phone is signed out at once.
      expect((await laptop.auth.delete(`/sessions/${phoneSession.id}`)).status).toBe(204)
      const ended = await phone.auth.get("/session")
      expect(ended.status).toBe(401)
      expect(ended.body.error).toBe("session_required")
      expect((await phone.settings(organisation.id).get("/keys")).status).toBe(401)
      expect((await laptop.auth.delete(`/sessions/${phoneSession.id}`)).status).toBe(404)
      expect((await laptop.auth.delete(`/sessions/${crypto.randomUUID()}`)).status).toBe(404)

      // Signing out clears the cookie, and the old one no longer works.
      const cookie = laptop.cookie()!
      const out = await laptop.auth.post("/sign-out")
      expect(out.status).toBe(204)
      expect(out.headers.get("set-cookie")).toBe(CLEARED)
      expect(laptop.cookie()).toBeUndefined()
      expect((await server().person().auth.get("/session", { cookie })).status).toBe(401)

      // Out everywhere: every session of the person ends, wherever it is.
      const desk = server().person()
      const tablet = server().person()
      await desk.signIn(email, PASSWORD)
      await tablet.signIn(email, PASSWORD)
      const deskCookie = desk.cookie()!
      expect((await desk.auth.post("/sign-out", { everywhere: true })).status).toBe(204)
      expect((await tablet.auth.get("/session")).status).toBe(401)
      expect((await server().person().auth.get("/session", { cookie: deskCookie })).status).toBe(401)

      // Ending one's own session from the list clears the cookie as signing out does.
      const solo = server().person()
      const begun = await solo.signIn(email, PASSWORD)
      const own = await solo.auth.delete(`/sessions/${begun.body.session.id}`)
      expect(own.status).toBe(204)
      expect(own.headers.get("set-cookie")).toBe(CLEARED)
    })

    it("ends a session idle for 12 hours or begun 14 days ago", async () => {
      const { email } = await withOwner(server())
      const cookieOf = (token: string) => ({ cookie: `crm_session=${token}` })
      const anyone = server().person()

      const recent = await signedInAt(server(), email, Date.now() - 11 * HOUR)
      expect((await anyone.auth.get("/session", cookieOf(recent.token))).status).toBe(200)

      const idle = await signedInAt(server(), email, Date.now() - 13 * HOUR)
      const refused = await anyone.auth.get("/session", cookieOf(idle.token))
      expect(refused.status).toBe(401)
      expect(refused.body.error).toBe("session_required")

      // Used every six hours until three hours ago, so never idle, but begun longer ago than a session may last.
      const begun = Date.now() - 14 * DAY - 2 * HOUR
      const old = await signedInAt(server(), email, begun)
      for (let at = begun + 6 * HOUR; at < Date.now() - 3 * HOUR; at += 6 * HOUR) {
        await server().run(
          Effect.flatMap(People.People, (people) => people.authenticate(old.token, "198.51.100.250")).pipe(
            Effect.withClock(clockAt(at))
          )
        )
      }
      expect((await anyone.auth.get("/session", cookieOf(old.token))).status).toBe(401)
    })

    it("refuses a cookie-authenticated write without the CSRF token or from another site (a forged request)", async () => {
      const { organisation, person: owner } = await withOwner(server())
      const keysBefore = (await owner.settings(organisation.id).get("/keys")).body.data.length
      const cookie = owner.cookie()!
      const url = `${server().url}/settings/v1/organisations/${organisation.id}/keys`
      const body = { name: "forged", scopes: ["read", "write", "invoices:write"] }

      // What another site's page can make a browser send: the cookie rides along (a same-site
      // cookie would not, but a sibling subdomain is same-site), with no token it could not read.
      const attempts: Array<Record<string, string>> = [
        { cookie, "content-type": "application/json" },
        { cookie, "content-type": "application/json", "x-csrf-token": "" },
        { cookie, "content-type": "application/json", "x-csrf-token": "A".repeat(43) },
        {
          cookie,
          "content-type": "application/json",
          "x-csrf-token": owner.csrfToken()!,
          origin: "https://evil.example"
        },
        { cookie, "content-type": "application/json", "x-csrf-token": owner.csrfToken()!, origin: "null" },
        { cookie, "content-type": "text/plain", origin: "https://evil.example" },
        { cookie, "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" }
      ]
      for (const headers of attempts) {
        const forged = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) })
        expect(forged.status, JSON.stringify(headers)).toBe(403)
        expect(((await forged.json()) as any).error).toBe("csrf_refused")
      }
      expect((await owner.settings(organisation.id).get("/keys")).body.data).toHaveLength(keysBefore)

      // The page itself: its own origin, the token it was told.
      const own = await owner.settings(organisation.id).post("/keys", body, { origin: server().url })
      expect(own.status).toBe(201)

      // Signing out is a write too; signing in from another site is refused before any password is checked.
      expect((await owner.auth.post("/sign-out", {}, { "x-csrf-token": "" })).status).toBe(403)
      expect((await owner.auth.get("/session")).status).toBe(200)
      const elsewhere = await server()
        .person()
        .auth.post("/sign-in", { email: "someone@example.com", password: PASSWORD }, { origin: "https://evil.example" })
      expect(elsewhere.status).toBe(403)
      expect(elsewhere.body.error).toBe("csrf_refused")
      expect(elsewhere.headers.get("set-cookie")).toBeNull()
      // A read from elsewhere is no write (and another site cannot read the answer).
      expect((await owner.auth.get("/session", { origin: "https://evil.example" })).status).toBe(200)
    })
  },
  { trustedProxies: ["127.0.0.1"] }
)

describe("people on an https site [memory]", () => {
  it("marks the session cookie Secure, and takes the public URL as the site's origin", async () => {
    const server = await startServer(memory.fresh(), { publicUrl: "https://crm.example/" })
    try {
      const { organisation, person } = await withOwner(server)
      const { token } = await server.invite(organisation.id, uniqueEmail("secure"), "member")
      const accepted = await server.person().accept(token, "Sam", PASSWORD)
      expect(accepted.headers.get("set-cookie")).toMatch(
        /^crm_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=1209600; Secure$/
      )
      const out = await person.auth.post("/sign-out", {}, { origin: server.url })
      expect(out.status).toBe(403)
      const signedOut = await person.auth.post("/sign-out", {}, { origin: "https://crm.example" })
      expect(signedOut.status).toBe(204)
      expect(signedOut.headers.get("set-cookie")).toBe(`${CLEARED}; Secure`)
    } finally {
      await server.close()
    }
  })
})

describe("the people's request log [memory]", () => {
  it("names the route's template, never an invitation's token, a password, the cookie or the CSRF token", async () => {
    const log = collector()
    const server = await startServer(memory.fresh(), { log: { level: "info", format: "json", output: log.output } })
    try {
      const created = await server.admin.post("/organisations", { name: "Logged" })
      const { token } = await server.invite(created.body.id, uniqueEmail("logged"), "owner")
      const person = server.person()
      const accepted = await person.accept(token, "Logged Owner", PASSWORD)
      expect(accepted.status).toBe(200)
      expect((await person.settings(created.body.id).get("/keys")).status).toBe(200)
      await vi.waitFor(() => expect(log.text()).toContain("/settings/v1/organisations/{id}/keys"))
      const lines = log.lines().map((line) => JSON.parse(line))
      const acceptLine = lines.find((line) => line.msg === "request" && line.method === "POST" && line.status === 200)
      expect(acceptLine.route).toBe("/auth/v1/invitations/{token}/accept")
      const keysLine = lines.find((line) => line.route === "/settings/v1/organisations/{id}/keys")
      expect(keysLine.organisation_id).toBe(created.body.id)
      for (const secret of [token, PASSWORD, person.cookie()!.slice(12), person.csrfToken()!]) {
        expect(log.text()).not.toContain(secret)
      }
    } finally {
      await server.close()
    }
  })
})
