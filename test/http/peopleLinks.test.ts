/**
 * The mailed links of an organisation's people through the real server: a sign-in link and a
 * password reset asked for by anyone (the same answer whether the address has an account), mailed
 * through the organisation's outbox, listed there withheld, delivered whole, used once and within
 * thirty minutes, and recorded in the trail without the token; then every `/auth/v1` write fed
 * what an attacker sends.
 *
 * The suites trust the loopback proxy, so that a test poses as a client of its own address with
 * `X-Forwarded-For`: every link request counts against its address, and one test's requests must
 * not throttle another's.
 */
import { Mail, People } from "@crm/core"
import { Api } from "@crm/http"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { afterAll, expect, it, vi } from "vitest"
import { z } from "zod"
import { clockAt } from "../support/clock.js"
import { PASSWORD, uniqueEmail, withOwner } from "../support/people.js"
import { checkedFetch } from "../support/responseCheck.js"
import { type Response, type TestServer, tokenOf } from "../support/server.js"
import { startSmtpServer } from "../support/smtpServer.js"
import { onEveryStore } from "../support/suite.js"

const MINUTE = 60_000
const SET_COOKIE = /^crm_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=1209600$/
const HUGE = "x".repeat(100_000)
const NEW_PASSWORD = "a new and longer passphrase"

/** A client address of the test's own, as the trusted loopback proxy forwards it. */
let addresses = 0
const fromAddress = () => ({ "x-forwarded-for": `203.0.113.${++addresses}` })

/** The organisation's outbox as the store holds it (bodies whole), newest first. */
const outbox = (server: TestServer, organisationId: string) =>
  server.run(
    Effect.flatMap(Mail.MailOutbox, (mail) => mail.list(organisationId as never, {}, { limit: 200, offset: 0 }))
  )

/** The mail queued in the organisation's outbox while `act` ran. */
const mailedDuring = async (server: TestServer, organisationId: string, act: () => Promise<unknown>) => {
  const before = new Set((await outbox(server, organisationId)).map((message) => message.id))
  await act()
  return (await outbox(server, organisationId)).filter((message) => !before.has(message.id))
}

/** The link a message's body holds, of the kind asked for. */
const linkIn = (body: string, kind: "sign-in" | "reset"): string => {
  const link = new RegExp(`\\S+/settings#${kind}=[A-Za-z0-9_-]{43}`).exec(body)?.[0]
  if (link === undefined) throw new Error(`no ${kind} link in ${JSON.stringify(body)}`)
  return link
}

/** Asks for a link (`/sign-in/link` or `/password-reset`) from a browser with no session, from an address of its own. */
const ask = (server: TestServer, path: string, email: string, from = fromAddress()) =>
  server.person().auth.post(path, { email }, from)

/** The token of the one message `act` mails to `email`, its kind in the body. */
const mailedToken = async (
  server: TestServer,
  organisationId: string,
  email: string,
  kind: "sign-in" | "reset",
  act: () => Promise<unknown>
) => {
  const mailed = await mailedDuring(server, organisationId, act)
  expect(mailed).toHaveLength(1)
  expect(mailed[0]).toMatchObject({ to: email, withheld: true })
  return tokenOf(linkIn(mailed[0]!.body, kind), kind)
}

/** The organisation's outbox as the operator lists it. */
const listed = async (server: TestServer, organisationId: string) => {
  const page = await server.admin.get(`/organisations/${organisationId}/mail?limit=200`)
  expect(page.status).toBe(200)
  return page
}

/** The audit trail as its owner pages through it: the whole answer's text, and its entries oldest first. */
const auditOf = async (owner: ReturnType<TestServer["person"]>, organisationId: string) => {
  const page = await owner.settings(organisationId).get("/audit?limit=200")
  expect(page.status).toBe(200)
  return { text: page.text, trail: [...page.body.data].reverse() }
}

const expectSignedIn = (answer: Response, email: string) => {
  expect(answer.status).toBe(200)
  expect(answer.headers.get("set-cookie")).toMatch(SET_COOKIE)
  expect(answer.body.user.email).toBe(email)
}

const expectGone = (answer: Response) => {
  expect(answer.status).toBe(410)
  expect(answer.body.error).toBe("invalid_link")
  expect(answer.headers.get("set-cookie")).toBeNull()
}

/** Asks the server's own service for a link at a time of the test's choosing. */
const askedAt = (server: TestServer, ms: number, email: string, purpose: "sign_in" | "password_reset") =>
  server.run(
    Effect.flatMap(People.People, (people) => {
      const client = { address: "203.0.113.250", device: null }
      return purpose === "sign_in"
        ? people.requestSignInLink(email, client)
        : people.requestPasswordReset(email, client)
    }).pipe(Effect.withClock(clockAt(ms)))
  )

onEveryStore(
  "mailed links",
  (server) => {
    it("mails a one-time sign-in link to a known address only, answering an unknown one the same; it works once", async () => {
      const { organisation, email, person: owner } = await withOwner(server())
      let known: Response | undefined
      const token = await mailedToken(server(), organisation.id, email, "sign-in", async () => {
        known = await ask(server(), "/sign-in/link", ` ${email.toUpperCase()} `)
      })
      expect(known!.status).toBe(202)
      expect(known!.body).toEqual({ sent: true })
      expect(known!.headers.get("set-cookie")).toBeNull()

      // An address with no account: the same answer, and nothing queued.
      let unknown: Response | undefined
      const none = await mailedDuring(server(), organisation.id, async () => {
        unknown = await ask(server(), "/sign-in/link", uniqueEmail("nobody"))
      })
      expect(none).toEqual([])
      expect({ status: unknown!.status, body: unknown!.body }).toEqual({ status: known!.status, body: known!.body })

      // The outbox lists the message withheld: its body, without the token, is all a reader of the list sees.
      const page = await listed(server(), organisation.id)
      const message = page.body.data.find((row: any) => row.subject === "Your sign-in link")
      expect(message).toMatchObject({ to: email, withheld: true, body: Mail.WITHHELD_BODY })
      expect(page.text).not.toContain(token)

      const browser = server().person()
      const signedIn = await browser.auth.post("/sign-in/link/complete", { token })
      expectSignedIn(signedIn, email)
      expect(signedIn.body.organisations).toEqual([{ id: organisation.id, name: organisation.name, role: "owner" }])
      expect((await browser.auth.get("/session")).status).toBe(200)
      expect(browser.cookie()).not.toBe(owner.cookie())

      expectGone(await server().person().auth.post("/sign-in/link/complete", { token }))

      // The trail says how she came in, and holds the token nowhere.
      const { text, trail } = await auditOf(owner, organisation.id)
      expect(trail.at(-1)).toMatchObject({
        action: "user.signed_in",
        actor: { kind: "user", label: email },
        target: { kind: "session", id: signedIn.body.session.id },
        summary: { method: "link" }
      })
      expect(text).not.toContain(token)
    })

    it("lets a link be used once when two browsers race with it", async () => {
      const { organisation, email } = await withOwner(server())
      const token = await mailedToken(server(), organisation.id, email, "sign-in", () =>
        ask(server(), "/sign-in/link", email)
      )
      const answers = await Promise.all(
        [0, 1, 2].map(() => server().person().auth.post("/sign-in/link/complete", { token }))
      )
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 410, 410])
    })

    it("refuses a link older than 30 minutes, a link of the other kind, and a token that names none", async () => {
      const { organisation, email } = await withOwner(server())
      const late = await mailedToken(server(), organisation.id, email, "sign-in", () =>
        askedAt(server(), Date.now() - 31 * MINUTE, email, "sign_in")
      )
      expectGone(await server().person().auth.post("/sign-in/link/complete", { token: late }))
      const lateReset = await mailedToken(server(), organisation.id, email, "reset", () =>
        askedAt(server(), Date.now() - 31 * MINUTE, email, "password_reset")
      )
      expectGone(
        await server().person().auth.post("/password-reset/complete", { token: lateReset, password: NEW_PASSWORD })
      )
      expect((await server().person().signIn(email, PASSWORD)).status).toBe(200)

      // Within the thirty minutes it works.
      const recent = await mailedToken(server(), organisation.id, email, "sign-in", () =>
        askedAt(server(), Date.now() - 29 * MINUTE, email, "sign_in")
      )
      expectSignedIn(await server().person().auth.post("/sign-in/link/complete", { token: recent }), email)

      // A reset link does not sign in, nor a sign-in link reset; refusing one does not use it up.
      const reset = await mailedToken(server(), organisation.id, email, "reset", () =>
        ask(server(), "/password-reset", email)
      )
      const signIn = await mailedToken(server(), organisation.id, email, "sign-in", () =>
        ask(server(), "/sign-in/link", email)
      )
      expectGone(await server().person().auth.post("/sign-in/link/complete", { token: reset }))
      expectGone(
        await server().person().auth.post("/password-reset/complete", { token: signIn, password: NEW_PASSWORD })
      )
      expectSignedIn(await server().person().auth.post("/sign-in/link/complete", { token: signIn }), email)
      expect((await server().person().signIn(email, PASSWORD)).status).toBe(200)
      expectSignedIn(
        await server().person().auth.post("/password-reset/complete", { token: reset, password: NEW_PASSWORD }),
        email
      )

      for (const bogus of ["nope", "A".repeat(43), `${signIn.slice(0, -1)}${signIn.endsWith("A") ? "B" : "A"}`]) {
        expectGone(await server().person().auth.post("/sign-in/link/complete", { token: bogus }))
        expectGone(
          await server().person().auth.post("/password-reset/complete", { token: bogus, password: NEW_PASSWORD })
        )
      }
    })

    it("mails no link to a person who no longer belongs to any organisation", async () => {
      const { organisation, person: owner } = await withOwner(server())
      const memberEmail = uniqueEmail("leaver")
      const { token } = await server().invite(organisation.id, memberEmail, "member")
      const member = await server().person().accept(token, "Leaver", PASSWORD)
      expect(member.status).toBe(200)
      expect((await owner.settings(organisation.id).delete(`/users/${member.body.user.id}`)).status).toBe(204)
      const mailed = await mailedDuring(server(), organisation.id, async () => {
        expect((await ask(server(), "/sign-in/link", memberEmail)).status).toBe(202)
        expect((await ask(server(), "/password-reset", memberEmail)).status).toBe(202)
      })
      expect(mailed).toEqual([])
    })

    it("resets a password by a mailed link: every old session ends, the old password no longer works, the link once", async () => {
      const { organisation, email, person: owner } = await withOwner(server())
      const laptop = server().person()
      const phone = server().person()
      expect((await laptop.signIn(email, PASSWORD)).status).toBe(200)
      expect((await phone.signIn(email, PASSWORD)).status).toBe(200)

      let known: Response | undefined
      const token = await mailedToken(server(), organisation.id, email, "reset", async () => {
        known = await ask(server(), "/password-reset", email)
      })
      const unknown = await ask(server(), "/password-reset", uniqueEmail("nobody"))
      expect(known!.status).toBe(202)
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 202, body: { sent: true } })
      const page = await listed(server(), organisation.id)
      expect(page.body.data.find((row: any) => row.subject === "Reset your password")).toMatchObject({
        withheld: true,
        body: Mail.WITHHELD_BODY
      })
      expect(page.text).not.toContain(token)

      // Too short a password is refused before the link is looked at: nothing changes, and the link still works.
      const short = await server().person().auth.post("/password-reset/complete", { token, password: "short" })
      expect(short.status).toBe(422)
      expect(short.body.error).toBe("validation_failed")
      expect(short.headers.get("set-cookie")).toBeNull()
      for (const browser of [owner, laptop, phone]) expect((await browser.auth.get("/session")).status).toBe(200)
      expect((await server().person().signIn(email, PASSWORD)).status).toBe(200)

      const reset = server().person()
      const done = await reset.auth.post("/password-reset/complete", { token, password: NEW_PASSWORD })
      expectSignedIn(done, email)
      expect((await reset.auth.get("/session")).status).toBe(200)

      for (const browser of [owner, laptop, phone]) {
        const ended = await browser.auth.get("/session")
        expect(ended.status).toBe(401)
        expect(ended.body.error).toBe("session_required")
      }
      const old = await server().person().auth.post("/sign-in", { email, password: PASSWORD }, fromAddress())
      expect(old.status).toBe(401)
      expect(old.body.error).toBe("invalid_credentials")
      expect(
        (await server().person().auth.post("/sign-in", { email, password: NEW_PASSWORD }, fromAddress())).status
      ).toBe(200)
      expectGone(
        await server().person().auth.post("/password-reset/complete", { token, password: "yet another passphrase" })
      )
      expect(
        (await server().person().auth.post("/sign-in", { email, password: NEW_PASSWORD }, fromAddress())).status
      ).toBe(200)

      // The trail: the reset by the person, the sessions it ended counted, the new session begun by it; no token, no password.
      const { text, trail } = await auditOf(reset, organisation.id)
      const resetEntry = trail.find((entry) => entry.action === "password.reset")
      expect(resetEntry).toMatchObject({
        actor: { kind: "user", id: done.body.user.id, label: email },
        target: { kind: "user", id: done.body.user.id },
        summary: { sessions_ended: 4 }
      })
      expect(trail.find((entry) => entry.target?.id === done.body.session.id)).toMatchObject({
        action: "user.signed_in",
        summary: { method: "password_reset" }
      })
      for (const secret of [token, NEW_PASSWORD, PASSWORD]) expect(text).not.toContain(secret)
    })

    it("counts every link request against its address: the eleventh is 429 and mails nothing", async () => {
      const { organisation, email } = await withOwner(server())
      const from = fromAddress()
      const mailed = await mailedDuring(server(), organisation.id, async () => {
        for (let request = 0; request < People.MAX_FAILURES; request++) {
          const path = request % 2 === 0 ? "/sign-in/link" : "/password-reset"
          expect((await ask(server(), path, request < 5 ? email : uniqueEmail("guess"), from)).status).toBe(202)
        }
        const limited = await ask(server(), "/sign-in/link", email, from)
        expect(limited.status).toBe(429)
        expect(limited.body.error).toBe("rate_limited")
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
        expect((await ask(server(), "/password-reset", email, from)).status).toBe(429)
      })
      expect(mailed).toHaveLength(5)
      // Another address is not held up.
      expect((await ask(server(), "/sign-in/link", email)).status).toBe(202)
    })

    it("answers every /auth/v1 write fed hostile bodies with a documented 4xx, and signs in right after", async () => {
      const { email, person: owner } = await withOwner(server())
      const writes = Api.table.filter(
        (mounted) => mounted.template.startsWith("/auth/v1/") && mounted.route.method !== "GET"
      )
      expect(writes.map((mounted) => `${mounted.route.method} ${mounted.template}`).sort()).toEqual([
        "DELETE /auth/v1/sessions/{id}",
        "POST /auth/v1/invitations/{token}/accept",
        "POST /auth/v1/password-reset",
        "POST /auth/v1/password-reset/complete",
        "POST /auth/v1/sign-in",
        "POST /auth/v1/sign-in/link",
        "POST /auth/v1/sign-in/link/complete",
        "POST /auth/v1/sign-out"
      ])
      const values: Record<string, unknown> = {
        email,
        password: PASSWORD,
        token: "A".repeat(43),
        name: "Eve",
        everywhere: false
      }
      const wrong: ReadonlyArray<unknown> = [
        42,
        true,
        null,
        [],
        {},
        [HUGE],
        HUGE,
        `${HUGE}@example.com`,
        "\u0000",
        "a\u0000b@example.com",
        "\ud800",
        "a\udc00b@example.com"
      ]
      /**
       * What is wrong with a body of the route's own fields: each field in turn, the whole, an extra
       * field; but none the route's schema would take (`true` is an answer to `everywhere`).
       */
      const hostileFor = (mounted: (typeof writes)[number]): ReadonlyArray<unknown> => {
        const schema = mounted.route.body?.schema
        const keys = schema instanceof z.ZodObject ? Object.keys(schema.shape) : []
        const fields = Object.fromEntries(keys.map((key) => [key, values[key]]))
        return [
          null,
          42,
          "a string",
          [],
          [fields],
          { ...fields, extra: 1 },
          ...keys.flatMap((key) => wrong.map((value) => ({ ...fields, [key]: value })))
        ].filter((body) => schema?.safeParse(body).success !== true)
      }
      const raws = [
        "",
        "{",
        '{"email":',
        "\u0000",
        `{"email":"${HUGE}"`,
        '{"email":"\\ud800@example.com","password":"\\udfff","token":"\\u0000"}'
      ]
      const refused = (answer: { status: number }, what: string) => {
        expect(answer.status, what).toBeGreaterThanOrEqual(400)
        expect(answer.status, what).toBeLessThan(500)
      }
      const pathOf = (template: string, value: string) =>
        template.replace("/auth/v1", "").replace(/\{[a-z_]+\}/, encodeURIComponent(value))
      for (const mounted of writes) {
        const method = mounted.route.method
        // The session routes need a session to reach their body; a fresh address each, so no throttle answers in its place.
        const browser = mounted.route.guard.kind === "session" ? owner : server().person()
        const path = pathOf(mounted.template, crypto.randomUUID())
        for (const body of hostileFor(mounted)) {
          const answer = await browser.auth.request(method, path, { body, headers: fromAddress() })
          refused(answer, `${method} ${mounted.template} ${JSON.stringify(body).slice(0, 80)}`)
        }
        // No body at all is how one signs out: refused only where a body is required.
        for (const raw of raws.filter((raw) => raw !== "" || mounted.route.body?.optional !== true)) {
          const answer = await browser.auth.request(method, path, {
            raw,
            headers: { ...fromAddress(), "content-type": "application/json" }
          })
          refused(answer, `${method} ${mounted.template} raw ${raw.slice(0, 80)}`)
        }
        // Bytes that are not UTF-8 at all.
        const bytes = await checkedFetch(`${server().url}/auth/v1${path}`, {
          method,
          headers: {
            ...fromAddress(),
            "content-type": "application/json",
            ...(browser.cookie() === undefined
              ? {}
              : { cookie: browser.cookie()!, "x-csrf-token": browser.csrfToken()! })
          },
          body: Buffer.concat([
            Buffer.from('{"email":"'),
            Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80]),
            Buffer.from('@example.com"}')
          ])
        })
        refused(bytes, `${method} ${mounted.template} bytes`)
        // What the path carries: garbage, NUL, a lone surrogate (as UTF-8 would spell it), and long.
        if (mounted.template.includes("{")) {
          for (const segment of ["x", "%00", "%ED%A0%80", "%FF", "%", "A".repeat(4_000), HUGE]) {
            const answer = await browser.auth.request(
              method,
              mounted.template.replace("/auth/v1", "").replace(/\{[a-z_]+\}/, segment),
              { ...(method === "POST" ? { body: { name: "Eve", password: PASSWORD } } : {}), headers: fromAddress() }
            )
            refused(answer, `${method} ${mounted.template} path ${segment.slice(0, 20)}`)
          }
        }
      }
      // Still signed in (no hostile body signed her out), and the server still lets people in.
      expect((await owner.auth.get("/session")).status).toBe(200)
      expect((await server().person().auth.post("/sign-in", { email, password: PASSWORD }, fromAddress())).status).toBe(
        200
      )
    })
  },
  { trustedProxies: ["127.0.0.1"] }
)

const smtp = await startSmtpServer()
afterAll(() => smtp.close())

/** A message's text as its reader gets it: quoted-printable or base64 undone, when the transport chose one. */
const textOf = (data: string): string => {
  const split = data.indexOf("\n\n")
  const headers = data.slice(0, split).toLowerCase()
  const body = data.slice(split + 2)
  if (headers.includes("content-transfer-encoding: base64")) return Buffer.from(body, "base64").toString("utf8")
  if (headers.includes("content-transfer-encoding: quoted-printable")) {
    return Buffer.from(
      body
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
      "latin1"
    ).toString("utf8")
  }
  return body
}

onEveryStore(
  "mailed links over SMTP",
  (server) => {
    it("hands the whole link to the SMTP server, while the outbox lists it withheld; an unknown address gets nothing", async () => {
      const { organisation, email } = await withOwner(server())
      const stranger = uniqueEmail("stranger")
      expect((await ask(server(), "/sign-in/link", stranger)).status).toBe(202)
      expect((await ask(server(), "/sign-in/link", email)).status).toBe(202)
      expect((await ask(server(), "/password-reset", email)).status).toBe(202)

      const delivered = await vi.waitFor(
        () => {
          const mail = smtp.received
            .filter((message) => message.to.includes(email))
            .map((message) => textOf(message.data))
          // The invitation that made her the owner, then the two links.
          expect(mail).toHaveLength(3)
          return mail
        },
        { timeout: 10_000, interval: 25 }
      )
      const signInMail = delivered.find((text) => text.includes("#sign-in="))!
      const resetMail = delivered.find((text) => text.includes("#reset="))!
      const signIn = tokenOf(linkIn(signInMail, "sign-in"), "sign-in")
      const reset = tokenOf(linkIn(resetMail, "reset"), "reset")

      const page = await vi.waitFor(
        async () => {
          const answer = await listed(server(), organisation.id)
          expect(answer.body.data.filter((row: any) => row.status === "sent")).toHaveLength(3)
          return answer
        },
        { timeout: 10_000, interval: 25 }
      )
      for (const row of page.body.data) expect(row).toMatchObject({ withheld: true, body: Mail.WITHHELD_BODY })
      for (const token of [signIn, reset]) expect(page.text).not.toContain(token)

      // The delivered links are the ones that work.
      expectSignedIn(await server().person().auth.post("/sign-in/link/complete", { token: signIn }), email)
      expectSignedIn(
        await server().person().auth.post("/password-reset/complete", { token: reset, password: NEW_PASSWORD }),
        email
      )
      expect(smtp.received.filter((message) => message.to.includes(stranger))).toEqual([])
    })
  },
  {
    trustedProxies: ["127.0.0.1"],
    mail: { smtp: { url: Redacted.make(smtp.url), from: "people@example.com" }, every: "20 millis" }
  }
)
