/**
 * The People service over the memory store, with scrypt at a test cost: invitations, signing in
 * (password, mailed link), resets, sessions and their expiry on the test clock, throttling, roles,
 * keys made and revoked in the settings, isolation between organisations, and the audit trail each
 * change writes (with its actor, never a secret, none for a change that failed).
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import * as StorageMemory from "@crm/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { Access, Ids, Mail, type Organisation, People, Webhooks } from "../src/index.js"

const START = Date.parse("2026-05-04T09:00:00.000Z")
const PUBLIC_URL = "https://crm.example.com/"
const PASSWORD = "correct horse battery staple"
const HOME = "203.0.113.7"
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

const client = (address = HOME): People.Client => ({ address, device: "Firefox 140 on Linux" })

const derive = (password: string, salt: Buffer) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, 32, { N: 1024 }, (error, key) => (error ? reject(error) : resolve(key)))
  )

// The service sees only that a hash is one: scrypt at 2^10 keeps the suite fast. Checks are
// counted, so that a refusal without a password to check can be seen to check one all the same.
const checks = { count: 0 }
const hasher = Layer.succeed(People.PasswordHasher, {
  hash: (password) =>
    Effect.promise(async () => {
      const salt = randomBytes(16)
      return `${salt.toString("base64url")}$${(await derive(password, salt)).toString("base64url")}`
    }),
  verify: (password, stored) =>
    Effect.promise(async () => {
      checks.count++
      const [salt, key] = stored.split("$")
      if (salt === undefined || key === undefined) return false
      return timingSafeEqual(await derive(password, Buffer.from(salt, "base64url")), Buffer.from(key, "base64url"))
    })
})

const hookPorts = Layer.mergeAll(
  Layer.succeed(Webhooks.Resolver, { resolve: () => Effect.succeed(["93.184.215.14"]) }),
  Layer.succeed(Webhooks.WebhookSender, {
    send: () =>
      Effect.succeed({ _tag: "Response", status: 204, retryAfter: undefined, excerpt: "", durationMs: 1 } as const)
  })
)

// Ids in the order they are minted: entries, mails and keys made at one instant then list in the
// order they were made (every list breaks ties of time by id).
const ascendingIds = Layer.sync(Ids.Ids, () => {
  let next = 0
  return { next: () => `00000000-0000-4000-8000-${(++next).toString(16).padStart(12, "0")}` }
})

const services = People.layer({ publicUrl: PUBLIC_URL }).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      Access.layer,
      Mail.layer,
      Webhooks.layerWith({ httpsRequired: false, allowPrivateTargets: true, timeoutMs: 1000 })
    )
  ),
  Layer.provideMerge(Layer.mergeAll(hasher, hookPorts)),
  Layer.provideMerge(StorageMemory.layer),
  Layer.provide(ascendingIds)
)

type Services = Layer.Layer.Success<typeof services>

/** Each test on a new, empty store, at START on the test clock. */
const test = <A, E>(name: string, body: () => Effect.Effect<A, E, Services>) =>
  it.effect(name, () => Effect.provide(Effect.zipRight(TestClock.setTime(START), Effect.suspend(body)), services))

const codeOf = <A, E extends { readonly code: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.code)

const tokenIn = (text: string, fragment: "invitation" | "sign-in" | "reset") => {
  const found = new RegExp(`/settings#${fragment}=([A-Za-z0-9_-]{43})`).exec(text)
  if (found === null) throw new Error(`no ${fragment} link in: ${text}`)
  return found[1]!
}

const organisation = (name: string) => Effect.flatMap(Access.Access, (access) => access.createOrganisation({ name }))

/** An operator's (or a member's) invitation, accepted: the newcomer signed in. */
const join = (
  organisationId: Organisation.OrganisationId,
  email: string,
  role: People.Role,
  options: { readonly address?: string; readonly password?: string } = {}
) =>
  Effect.gen(function* () {
    const people = yield* People.People
    const invitation = yield* people.invite(organisationId, { email, role }, People.operator("198.51.100.1"))
    return yield* people.acceptInvitation(
      tokenIn(invitation.accept_url, "invitation"),
      { name: email.split("@")[0]!, password: options.password ?? PASSWORD },
      client(options.address)
    )
  })

const signedIn = (signed: People.SignedIn, address = HOME) =>
  Effect.flatMap(People.People, (people) => people.authenticate(signed.token, address))

const inside = (signed: People.SignedIn, organisationId: Organisation.OrganisationId) =>
  Effect.flatMap(People.People, (people) =>
    Effect.flatMap(people.authenticate(signed.token, HOME), (principal) => people.enter(principal, organisationId))
  )

const trail = (organisationId: Organisation.OrganisationId) =>
  Effect.map(
    Effect.flatMap(People.AuditLog, (log) => log.page(organisationId, { limit: 200, offset: 0 })),
    (entries) => [...entries].reverse()
  )

const actions = (organisationId: Organisation.OrganisationId) =>
  Effect.map(trail(organisationId), (entries) => entries.map((entry) => entry.action))

const outbox = (organisationId: Organisation.OrganisationId) =>
  Effect.flatMap(Mail.MailOutbox, (mail) => mail.list(organisationId, {}, { limit: 200, offset: 0 }))

/** The messages to `to`, as sent (the outbox keeps the body; only its listing withholds it). */
const mailTo = (organisationId: Organisation.OrganisationId, to: string) =>
  Effect.map(outbox(organisationId), (sent) => sent.filter((message) => message.to === to))

/** The one link `request` mails to `to`. */
const mailedToken = <E>(
  organisationId: Organisation.OrganisationId,
  to: string,
  fragment: "sign-in" | "reset",
  request: Effect.Effect<void, E, Services>
) =>
  Effect.gen(function* () {
    const before = new Set((yield* mailTo(organisationId, to)).map((message) => message.id))
    yield* request
    const fresh = (yield* mailTo(organisationId, to)).filter((message) => !before.has(message.id))
    expect(fresh).toHaveLength(1)
    return tokenIn(fresh[0]!.body, fragment)
  })

describe("invitations", () => {
  test("an operator's invitation is mailed; accepting it makes the account, the membership and a session", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const created = yield* people.invite(
        acme.id,
        { email: " Ada@Example.com ", role: "owner" },
        People.operator("198.51.100.1")
      )
      expect(created).toMatchObject({
        email: "ada@example.com",
        role: "owner",
        status: "pending",
        invited_by: "operator"
      })
      expect(created.expires_at).toBe(new Date(START + People.INVITATION_MS).toISOString())
      expect(created.accept_url).toMatch(/^https:\/\/crm\.example\.com\/settings#invitation=[A-Za-z0-9_-]{43}$/)
      const mails = yield* mailTo(acme.id, "ada@example.com")
      expect(mails).toHaveLength(1)
      expect(mails[0]!.body).toContain(created.accept_url)
      expect(mails[0]!.withheld).toBe(true)

      const signed = yield* people.acceptInvitation(
        tokenIn(created.accept_url, "invitation"),
        { name: "Ada Lovelace", password: PASSWORD },
        client()
      )
      expect(signed.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(signed.info.user).toMatchObject({ email: "ada@example.com", name: "Ada Lovelace" })
      expect(signed.info.organisations).toEqual([{ id: acme.id, name: "Acme", role: "owner" }])
      expect(signed.info.session.expires_at).toBe(new Date(START + People.SESSION_IDLE_MS).toISOString())
      const principal = yield* signedIn(signed)
      expect(principal.account.email).toBe("ada@example.com")
      expect(principal.csrfToken).toBe(signed.info.csrf_token)
      expect(principal.csrfToken).not.toBe(signed.token)

      const entries = yield* trail(acme.id)
      expect(entries.map((entry) => [entry.action, entry.actor.kind, entry.actor.label])).toEqual([
        ["organisation.created", "operator", "operator"],
        ["invitation.created", "operator", "operator"],
        ["invitation.accepted", "user", "ada@example.com"],
        ["user.signed_in", "user", "ada@example.com"]
      ])
      expect(entries[2]).toMatchObject({ address: HOME, summary: { email: "ada@example.com", role: "owner" } })
    }))

  test("a used, revoked or expired invitation is an invalid link; the list says which", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const owner = yield* inside(yield* join(acme.id, "owner@example.com", "owner"), acme.id)
      const accept = (url: string, email: string) =>
        people.acceptInvitation(tokenIn(url, "invitation"), { name: email, password: PASSWORD }, client())

      const used = yield* people.inviteAs(owner, { email: "used@example.com", role: "member" })
      yield* accept(used.accept_url, "used")
      expect(yield* codeOf(accept(used.accept_url, "used"))).toBe("invalid_link")

      const revoked = yield* people.inviteAs(owner, { email: "revoked@example.com", role: "member" })
      yield* people.revokeInvitation(owner, revoked.id)
      expect(yield* codeOf(accept(revoked.accept_url, "revoked"))).toBe("invalid_link")
      expect(yield* codeOf(people.revokeInvitation(owner, revoked.id))).toBe("not_found")

      const late = yield* people.inviteAs(owner, { email: "late@example.com", role: "member" })
      yield* TestClock.adjust(People.INVITATION_MS - 1)
      const onTime = yield* people.inviteAs(owner, { email: "ontime@example.com", role: "member" })
      yield* TestClock.adjust(1)
      expect(yield* codeOf(accept(late.accept_url, "late"))).toBe("invalid_link")
      yield* accept(onTime.accept_url, "ontime")

      expect(yield* codeOf(accept(`/settings#invitation=${"A".repeat(43)}`, "nobody"))).toBe("invalid_link")
      const listed = yield* people.invitations(owner, { limit: 50, offset: 0 })
      expect(Object.fromEntries(listed.data.map((invitation) => [invitation.email, invitation.status]))).toEqual({
        "owner@example.com": "accepted",
        "used@example.com": "accepted",
        "revoked@example.com": "revoked",
        "late@example.com": "expired",
        "ontime@example.com": "accepted"
      })
      expect(yield* actions(acme.id)).toEqual(
        expect.arrayContaining(["invitation.revoked", "invitation.accepted", "invitation.created"])
      )
    }))

  test("a person with an account joins another organisation with their own password, and only with it", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const beta = yield* organisation("Beta")
      yield* join(acme.id, "ada@example.com", "owner")
      const invitation = yield* people.invite(beta.id, { email: "ada@example.com", role: "admin" }, People.system)
      const token = tokenIn(invitation.accept_url, "invitation")
      const wrong = people.acceptInvitation(token, { name: "Mallory", password: "not her password" }, client())
      expect(yield* codeOf(wrong)).toBe("invalid_credentials")
      const signed = yield* people.acceptInvitation(token, { name: "Someone Else", password: PASSWORD }, client())
      expect(signed.info.user.name).toBe("ada")
      expect(signed.info.organisations.map((membership) => [membership.name, membership.role])).toEqual([
        ["Acme", "owner"],
        ["Beta", "admin"]
      ])
    }))

  test("whoever invited holds the link, but guessing the account's password through it is throttled", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const beta = yield* organisation("Beta")
      yield* join(acme.id, "ada@example.com", "owner")
      const invitation = yield* people.invite(beta.id, { email: "ada@example.com", role: "owner" }, People.system)
      const token = tokenIn(invitation.accept_url, "invitation")
      for (let n = 1; n < People.MAX_FAILURES; n++) {
        const guess = people.acceptInvitation(
          token,
          { name: "x", password: `guess number ${n}` },
          client(`192.0.2.${n}`)
        )
        expect(yield* codeOf(guess)).toBe("invalid_credentials")
      }
      // The tenth failure, by signing in.
      yield* Effect.flip(people.signIn({ email: "ada@example.com", password: "guess number 10" }, client()))
      const right = people.acceptInvitation(token, { name: "x", password: PASSWORD }, client("192.0.2.99"))
      expect(yield* codeOf(right)).toBe("rate_limited")
      expect((yield* trail(acme.id)).filter((entry) => entry.action === "sign_in.failed")).toHaveLength(10)
      yield* TestClock.adjust(People.FAILURE_WINDOW_MS)
      expect((yield* right).info.organisations.map((membership) => membership.name)).toEqual(["Acme", "Beta"])
    }))

  test("an account without a password cannot be taken by an invitation's link: it sets one by a reset first", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const accounts = yield* People.PeopleRepository
      yield* accounts.insertAccount({
        id: People.AccountId.parse("00000000-0000-4000-8000-0000000000aa"),
        email: "linkonly@example.com",
        name: "Link Only",
        password_hash: null,
        created_at: new Date(START).toISOString()
      })
      const invitation = yield* people.invite(acme.id, { email: "linkonly@example.com", role: "owner" }, People.system)
      const before = checks.count
      const accept = people.acceptInvitation(
        tokenIn(invitation.accept_url, "invitation"),
        { name: "Mallory", password: PASSWORD },
        client()
      )
      expect(yield* codeOf(accept)).toBe("invalid_credentials")
      expect(checks.count - before).toBe(1)
      const listed = yield* people.invitations(
        yield* inside(yield* join(acme.id, "owner@example.com", "owner"), acme.id),
        { limit: 50, offset: 0 }
      )
      expect(listed.data.find((found) => found.id === invitation.id)?.status).toBe("pending")
    }))

  test("an address already in the organisation is refused, and nothing is recorded or mailed", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      yield* join(acme.id, "ada@example.com", "owner")
      const before = yield* actions(acme.id)
      const again = people.invite(acme.id, { email: "ADA@example.com", role: "member" }, People.operator(null))
      expect(yield* codeOf(again)).toBe("already_member")
      expect(yield* actions(acme.id)).toEqual(before)
      expect(yield* outbox(acme.id)).toHaveLength(1)
    }))

  test("who may invite: owners and admins, an owner only by an owner; members not at all", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const owner = yield* inside(yield* join(acme.id, "owner@example.com", "owner"), acme.id)
      const admin = yield* inside(yield* join(acme.id, "admin@example.com", "admin"), acme.id)
      const member = yield* inside(yield* join(acme.id, "member@example.com", "member"), acme.id)
      const invite = (by: People.MemberPrincipal, email: string, role: People.Role) =>
        Effect.match(people.inviteAs(by, { email, role }), { onFailure: (error) => error.code, onSuccess: () => "ok" })
      expect(yield* invite(owner, "o2@example.com", "owner")).toBe("ok")
      expect(yield* invite(admin, "o3@example.com", "owner")).toBe("owner_only")
      expect(yield* invite(admin, "a2@example.com", "admin")).toBe("ok")
      expect(yield* invite(member, "m2@example.com", "member")).toBe("forbidden")
      expect(yield* codeOf(people.invitations(member, { limit: 50, offset: 0 }))).toBe("forbidden")
      const ownersInvitation = (yield* people.invitations(owner, { limit: 50, offset: 0 })).data.find(
        (invitation) => invitation.email === "o2@example.com"
      )!
      expect(yield* codeOf(people.revokeInvitation(admin, ownersInvitation.id))).toBe("owner_only")
      const created = (yield* trail(acme.id)).filter((entry) => entry.action === "invitation.created")
      expect(created.map((entry) => entry.actor.label)).toEqual([
        "operator",
        "operator",
        "operator",
        "owner@example.com",
        "admin@example.com"
      ])
    }))
})

describe("signing in", () => {
  test("a wrong password and an unknown address get one answer, and both check a password", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      yield* join(acme.id, "ada@example.com", "owner")
      const signed = yield* people.signIn({ email: "ADA@example.com", password: PASSWORD }, client())
      expect(signed.info.user.email).toBe("ada@example.com")

      const refusal = (email: string, password: string) =>
        Effect.gen(function* () {
          const before = checks.count
          const error = yield* Effect.flip(people.signIn({ email, password }, client()))
          return { code: error.code, detail: "detail" in error ? error.detail : null, checked: checks.count - before }
        })
      const wrong = yield* refusal("ada@example.com", "wrong password!")
      const unknown = yield* refusal("nobody@example.com", PASSWORD)
      expect(wrong).toMatchObject({ code: "invalid_credentials", checked: 1 })
      expect(unknown).toEqual(wrong)

      const failed = (yield* trail(acme.id)).filter((entry) => entry.action === "sign_in.failed")
      expect(failed).toHaveLength(1)
      expect(failed[0]).toMatchObject({
        actor: { kind: "anonymous", id: null },
        address: HOME,
        target: { kind: "user", id: signed.info.user.id },
        summary: { email: "ada@example.com" }
      })
    }))

  test("ten failures in fifteen minutes for an account refuse the next attempt, right password or not", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      yield* join(acme.id, "ada@example.com", "owner")
      for (let n = 0; n < People.MAX_FAILURES; n++) {
        // From many addresses: the account's own count refuses.
        const attempt = people.signIn({ email: "ada@example.com", password: `guess ${n}` }, client(`192.0.2.${n}`))
        expect(yield* codeOf(attempt)).toBe("invalid_credentials")
        yield* TestClock.adjust(MINUTE)
      }
      const refused = yield* Effect.flip(people.signIn({ email: "ada@example.com", password: PASSWORD }, client()))
      expect(refused).toMatchObject({ code: "rate_limited", limit: People.MAX_FAILURES })
      // The first failure (at START) leaves the window fifteen minutes after it: five minutes from now.
      expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBe(5 * 60)
      const checked = checks.count
      yield* Effect.flip(people.signIn({ email: "ada@example.com", password: PASSWORD }, client()))
      expect(checks.count).toBe(checked)

      yield* TestClock.adjust(5 * MINUTE)
      const signed = yield* people.signIn({ email: "ada@example.com", password: PASSWORD }, client())
      expect(signed.info.user.email).toBe("ada@example.com")
    }))

  test("a burst of attempts sent at once checks no more passwords than the throttle allows", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      yield* join(acme.id, "ada@example.com", "owner")
      const before = checks.count
      const codes = yield* Effect.all(
        Array.from({ length: 3 * People.MAX_FAILURES }, (_, n) =>
          codeOf(people.signIn({ email: "ada@example.com", password: `guess ${n}` }, client("192.0.2.77")))
        ),
        { concurrency: "unbounded" }
      )
      // Without the checks under way counted, every one would pass the throttle before the first
      // failure is written, and each would cost a password check.
      expect(checks.count - before).toBe(People.MAX_FAILURES)
      expect(codes.filter((code) => code === "invalid_credentials")).toHaveLength(People.MAX_FAILURES)
      expect(codes.filter((code) => code === "rate_limited")).toHaveLength(2 * People.MAX_FAILURES)
    }))

  test("one address failing across many addresses' accounts is refused for every account", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      yield* join(acme.id, "ada@example.com", "owner")
      for (let n = 0; n < People.MAX_FAILURES; n++) {
        yield* Effect.flip(people.signIn({ email: `guess${n}@example.com`, password: PASSWORD }, client("192.0.2.66")))
      }
      const fromThere = people.signIn({ email: "ada@example.com", password: PASSWORD }, client("192.0.2.66"))
      expect(yield* codeOf(fromThere)).toBe("rate_limited")
      const fromHome = yield* people.signIn({ email: "ada@example.com", password: PASSWORD }, client(HOME))
      expect(fromHome.info.user.email).toBe("ada@example.com")
      // Failures for unknown addresses belong to no organisation's trail.
      expect(yield* actions(acme.id)).not.toContain("sign_in.failed")
    }))

  test("a mailed sign-in link works once and for thirty minutes; the outbox lists it withheld", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      yield* join(acme.id, "ada@example.com", "owner")
      const token = yield* mailedToken(
        acme.id,
        "ada@example.com",
        "sign-in",
        people.requestSignInLink("Ada@example.com", client())
      )
      const mailer = yield* Mail.Mailer
      yield* mailer.send(acme.id, { to: "ada@example.com", subject: "Hello", body: "Nothing secret" })
      const listed = yield* mailer.list(yield* (yield* Access.Access).getOrganisation(acme.id), {
        limit: 50,
        offset: 0
      })
      expect(listed.data.map((message) => [message.subject, message.withheld, message.body])).toEqual([
        ["Hello", false, "Nothing secret"],
        ["Your sign-in link", true, Mail.WITHHELD_BODY],
        ["You are invited to Acme", true, Mail.WITHHELD_BODY]
      ])

      const signed = yield* people.signInWithLink(token, client())
      expect(signed.info.user.email).toBe("ada@example.com")
      expect(yield* codeOf(people.signInWithLink(token, client()))).toBe("invalid_link")

      const late = yield* mailedToken(
        acme.id,
        "ada@example.com",
        "sign-in",
        people.requestSignInLink("ada@example.com", client())
      )
      yield* TestClock.adjust(People.LINK_MS)
      expect(yield* codeOf(people.signInWithLink(late, client()))).toBe("invalid_link")

      // The same answer for an address without an account, and no mail.
      const count = (yield* outbox(acme.id)).length
      yield* people.requestSignInLink("nobody@example.com", client())
      expect(yield* outbox(acme.id)).toHaveLength(count)
    }))

  test("link requests count against their address: the eleventh in fifteen minutes is refused", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      for (let n = 0; n < People.MAX_FAILURES; n++) yield* people.requestPasswordReset(`x${n}@example.com`, client())
      expect(yield* codeOf(people.requestSignInLink("ada@example.com", client()))).toBe("rate_limited")
      yield* people.requestSignInLink("ada@example.com", client("192.0.2.1"))
    }))

  test("a password reset link sets the password once, ends every session and begins one", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const first = yield* join(acme.id, "ada@example.com", "owner")
      const second = yield* people.signIn({ email: "ada@example.com", password: PASSWORD }, client("192.0.2.9"))
      const token = yield* mailedToken(
        acme.id,
        "ada@example.com",
        "reset",
        people.requestPasswordReset("ada@example.com", client())
      )
      // A reset link is not a sign-in link.
      expect(yield* codeOf(people.signInWithLink(token, client()))).toBe("invalid_link")

      const fresh = yield* people.resetPassword(token, "a brand new passphrase", client())
      for (const old of [first, second]) expect(yield* codeOf(signedIn(old))).toBe("session_required")
      expect((yield* signedIn(fresh)).account.email).toBe("ada@example.com")
      expect(yield* codeOf(people.resetPassword(token, "yet another passphrase", client()))).toBe("invalid_link")
      expect(yield* codeOf(people.signIn({ email: "ada@example.com", password: PASSWORD }, client()))).toBe(
        "invalid_credentials"
      )
      yield* people.signIn({ email: "ada@example.com", password: "a brand new passphrase" }, client())
      const reset = (yield* trail(acme.id)).find((entry) => entry.action === "password.reset")
      expect(reset).toMatchObject({ actor: { kind: "user", label: "ada@example.com" }, summary: { sessions_ended: 2 } })
    }))
})

describe("sessions", () => {
  test("a session unused for twelve hours is over; one in use lasts fourteen days at most", () =>
    Effect.gen(function* () {
      const acme = yield* organisation("Acme")
      const idle = yield* join(acme.id, "idle@example.com", "owner")
      const busy = yield* join(acme.id, "busy@example.com", "admin")
      yield* TestClock.adjust(People.SESSION_IDLE_MS - MINUTE)
      yield* signedIn(busy)
      yield* TestClock.adjust(MINUTE)
      expect(yield* codeOf(signedIn(idle))).toBe("session_required")
      // Used every eleven hours: never idle, until its absolute end.
      for (let at = START + People.SESSION_IDLE_MS; at < START + People.SESSION_ABSOLUTE_MS; at += 11 * HOUR) {
        yield* TestClock.setTime(at)
        yield* signedIn(busy)
      }
      yield* TestClock.setTime(START + People.SESSION_ABSOLUTE_MS - MINUTE)
      yield* signedIn(busy)
      yield* TestClock.adjust(MINUTE)
      expect(yield* codeOf(signedIn(busy))).toBe("session_required")
    }))

  test("lists the person's live sessions, revokes one of them, and not another person's", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const first = yield* join(acme.id, "ada@example.com", "owner")
      const second = yield* people.signIn({ email: "ada@example.com", password: PASSWORD }, client("192.0.2.9"))
      const other = yield* join(acme.id, "bob@example.com", "member")
      const principal = yield* signedIn(first)
      const listed = yield* people.sessions(principal)
      expect(listed.map((session) => [session.id, session.current, session.address])).toEqual(
        expect.arrayContaining([
          [first.info.session.id, true, HOME],
          [second.info.session.id, false, "192.0.2.9"]
        ])
      )
      expect(listed).toHaveLength(2)
      expect(listed[0]!.device).toBe("Firefox 140 on Linux")
      expect(yield* codeOf(people.revokeSession(principal, other.info.session.id))).toBe("not_found")
      yield* signedIn(other)
      yield* people.revokeSession(principal, second.info.session.id)
      expect(yield* codeOf(signedIn(second))).toBe("session_required")
      expect((yield* people.sessions(principal)).map((session) => session.id)).toEqual([first.info.session.id])
      const revoked = (yield* trail(acme.id)).find((entry) => entry.action === "session.revoked")
      expect(revoked).toMatchObject({ target: { kind: "session", id: second.info.session.id } })
    }))

  test("signing out ends this session; everywhere ends every one", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const first = yield* join(acme.id, "ada@example.com", "owner")
      const signIn = people.signIn({ email: "ada@example.com", password: PASSWORD }, client())
      const second = yield* signIn
      yield* people.signOut(yield* signedIn(first), false)
      expect(yield* codeOf(signedIn(first))).toBe("session_required")
      yield* signedIn(second)
      const third = yield* signIn
      yield* people.signOut(yield* signedIn(third), true)
      for (const ended of [second, third]) expect(yield* codeOf(signedIn(ended))).toBe("session_required")
      const signedOut = (yield* trail(acme.id)).filter((entry) => entry.action === "user.signed_out")
      expect(signedOut.map((entry) => entry.summary)).toEqual([{ everywhere: false }, { everywhere: true }])
    }))

  test("a token that is missing, malformed or unknown is no session", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      for (const token of [undefined, "", "short", "A".repeat(43)]) {
        expect(yield* codeOf(people.authenticate(token, HOME))).toBe("session_required")
      }
    }))
})

describe("roles", () => {
  test("owners change roles; admins may not touch owners; the last owner is kept", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const ownerSigned = yield* join(acme.id, "owner@example.com", "owner")
      const owner = yield* inside(ownerSigned, acme.id)
      const admin = yield* inside(yield* join(acme.id, "admin@example.com", "admin"), acme.id)
      const member = yield* inside(yield* join(acme.id, "member@example.com", "member"), acme.id)
      const change = (by: People.MemberPrincipal, target: People.MemberPrincipal, role: People.Role) =>
        Effect.match(people.changeRole(by, target.account.id, role), {
          onFailure: (error) => error.code,
          onSuccess: (changed) => changed.role
        })
      expect(yield* change(member, admin, "member")).toBe("forbidden")
      expect(yield* change(admin, owner, "admin")).toBe("owner_only")
      expect(yield* change(admin, member, "owner")).toBe("owner_only")
      expect(yield* change(owner, owner, "admin")).toBe("last_owner")
      expect(yield* codeOf(people.removeMember(owner, owner.account.id))).toBe("last_owner")
      expect(yield* change(admin, member, "admin")).toBe("admin")
      expect(yield* change(owner, member, "owner")).toBe("owner")
      // Two owners now: one may step down.
      expect(yield* change(owner, owner, "admin")).toBe("admin")
      expect(yield* codeOf(people.changeRole(owner, member.account.id, "member"))).toBe("owner_only")
      const changed = (yield* trail(acme.id)).filter((entry) => entry.action === "member.role_changed")
      expect(changed.map((entry) => [entry.actor.label, entry.summary])).toEqual([
        ["admin@example.com", { email: "member@example.com", from: "member", to: "admin" }],
        ["owner@example.com", { email: "member@example.com", from: "admin", to: "owner" }],
        ["owner@example.com", { email: "owner@example.com", from: "owner", to: "admin" }]
      ])
      expect(yield* codeOf(people.changeRole(owner, ownerSigned.info.user.id, "owner"))).toBe("owner_only")
      expect((yield* people.members(admin, { limit: 50, offset: 0 })).data.map((row) => [row.email, row.role])).toEqual(
        [
          ["owner@example.com", "admin"],
          ["admin@example.com", "admin"],
          ["member@example.com", "owner"]
        ]
      )
    }))

  test("two owners demoting each other at once: one of them stays owner", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const a = yield* inside(yield* join(acme.id, "a@example.com", "owner"), acme.id)
      const b = yield* inside(yield* join(acme.id, "b@example.com", "owner"), acme.id)
      const outcomes = yield* Effect.all(
        [people.changeRole(a, b.account.id, "admin"), people.changeRole(b, a.account.id, "admin")],
        { concurrency: "unbounded", mode: "either" }
      )
      expect(outcomes.filter(Either.isRight)).toHaveLength(1)
      expect(outcomes.filter(Either.isLeft).map((outcome) => outcome.left.code)).toEqual(["owner_only"])
      const owners = (yield* people.members(a, { limit: 50, offset: 0 })).data.filter((row) => row.role === "owner")
      expect(owners).toHaveLength(1)

      const beta = yield* organisation("Beta")
      const c = yield* inside(yield* join(beta.id, "c@example.com", "owner"), beta.id)
      const d = yield* inside(yield* join(beta.id, "d@example.com", "owner"), beta.id)
      const stepping = yield* Effect.all(
        [people.changeRole(c, c.account.id, "admin"), people.changeRole(d, d.account.id, "admin")],
        { concurrency: "unbounded", mode: "either" }
      )
      expect(stepping.filter(Either.isRight)).toHaveLength(1)
      expect(stepping.filter(Either.isLeft).map((outcome) => outcome.left.code)).toEqual(["last_owner"])
      expect((yield* actions(beta.id)).filter((action) => action === "member.role_changed")).toHaveLength(1)
    }))

  test("a person leaves or is removed, and then reaches nothing of the organisation", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const owner = yield* inside(yield* join(acme.id, "owner@example.com", "owner"), acme.id)
      const adminSigned = yield* join(acme.id, "admin@example.com", "admin")
      const admin = yield* inside(adminSigned, acme.id)
      const memberSigned = yield* join(acme.id, "member@example.com", "member")
      const member = yield* inside(memberSigned, acme.id)
      expect(yield* codeOf(people.removeMember(member, admin.account.id))).toBe("forbidden")
      expect(yield* codeOf(people.removeMember(admin, owner.account.id))).toBe("last_owner")
      yield* people.removeMember(member, member.account.id)
      yield* people.removeMember(owner, admin.account.id)
      for (const gone of [memberSigned, adminSigned]) expect(yield* codeOf(inside(gone, acme.id))).toBe("not_found")
      expect(yield* codeOf(people.removeMember(owner, admin.account.id))).toBe("not_found")
      const removed = (yield* trail(acme.id)).filter((entry) => entry.action === "member.removed")
      expect(removed.map((entry) => [entry.actor.label, entry.summary])).toEqual([
        ["member@example.com", { email: "member@example.com", role: "member" }],
        ["owner@example.com", { email: "admin@example.com", role: "admin" }]
      ])
    }))
})

describe("keys and settings in the screen", () => {
  test("members make keys of read and write only, and revoke only theirs; a revoked key is refused", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const access = yield* Access.Access
      const acme = yield* organisation("Acme")
      const owner = yield* inside(yield* join(acme.id, "owner@example.com", "owner"), acme.id)
      const member = yield* inside(yield* join(acme.id, "member@example.com", "member"), acme.id)
      const wide = people.createKey(member, { name: "wide", scopes: ["read", "invoices:write"], allowed_ips: [] })
      expect(yield* codeOf(wide)).toBe("scope_not_allowed")
      const mine = yield* people.createKey(member, { name: "mine", scopes: ["read", "write"], allowed_ips: [] })
      const owners = yield* people.createKey(owner, {
        name: "owner's",
        scopes: ["read", "invoices:write"],
        allowed_ips: []
      })
      const listed = yield* people.keys(member, { limit: 50, offset: 0 })
      expect(listed.data.map((key) => [key.name, key.created_by])).toEqual([
        ["owner's", owner.account.id],
        ["mine", member.account.id]
      ])
      expect(yield* codeOf(people.revokeKey(member, owners.id))).toBe("forbidden")
      yield* access.authenticate(owners.key, HOME)
      yield* people.revokeKey(member, mine.id)
      expect(yield* codeOf(access.authenticate(mine.key, HOME))).toBe("invalid_api_key")
      yield* people.revokeKey(owner, owners.id)
      expect(yield* codeOf(access.authenticate(owners.key, HOME))).toBe("invalid_api_key")
      const entries = (yield* trail(acme.id)).filter((entry) => entry.action.startsWith("key."))
      expect(entries.map((entry) => [entry.action, entry.actor.label, entry.target?.id])).toEqual([
        ["key.created", "member@example.com", mine.id],
        ["key.created", "owner@example.com", owners.id],
        ["key.revoked", "member@example.com", mine.id],
        ["key.revoked", "owner@example.com", owners.id]
      ])
      expect(entries[1]!.summary).toMatchObject({ name: "owner's", scopes: ["read", "invoices:write"] })
    }))

  test("settings: members read them, admins replace them, recorded with what changed", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const admin = yield* inside(yield* join(acme.id, "admin@example.com", "admin"), acme.id)
      const member = yield* inside(yield* join(acme.id, "member@example.com", "member"), acme.id)
      const current = yield* people.organisation(member)
      const renamed = { ...current.settings, name: "Acme Ltd" }
      expect(yield* codeOf(people.replaceSettings(member, renamed))).toBe("forbidden")
      const replaced = yield* people.replaceSettings(admin, renamed)
      expect(replaced.name).toBe("Acme Ltd")
      const entry = (yield* trail(acme.id)).find((found) => found.action === "settings.replaced")
      expect(entry).toMatchObject({
        actor: { kind: "user", label: "admin@example.com" },
        summary: { changed: ["name"] }
      })
      expect(yield* codeOf(people.audit(member, { limit: 50, offset: 0 }))).toBe("forbidden")
      const page = yield* people.audit(admin, { limit: 2, offset: 0 })
      expect(page.data.map((found) => found.action)).toEqual(["settings.replaced", "user.signed_in"])
      expect(page.has_more).toBe(true)
    }))

  test("an organisation's people see nothing of another's: entering it, its keys, its invitations", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const beta = yield* organisation("Beta")
      const acmeSigned = yield* join(acme.id, "owner@acme.example", "owner")
      const acmeOwner = yield* inside(acmeSigned, acme.id)
      const betaOwner = yield* inside(yield* join(beta.id, "owner@beta.example", "owner"), beta.id)
      expect(yield* codeOf(inside(acmeSigned, beta.id))).toBe("not_found")
      const betaKey = yield* people.createKey(betaOwner, { scopes: ["read"], allowed_ips: [] })
      expect(yield* codeOf(people.revokeKey(acmeOwner, betaKey.id))).toBe("not_found")
      yield* (yield* Access.Access).authenticate(betaKey.key, HOME)
      const betaInvitation = yield* people.inviteAs(betaOwner, { email: "x@example.com", role: "member" })
      expect(yield* codeOf(people.revokeInvitation(acmeOwner, betaInvitation.id))).toBe("not_found")
      expect(yield* codeOf(people.changeRole(acmeOwner, betaOwner.account.id, "admin"))).toBe("not_found")
      expect(yield* codeOf(people.removeMember(acmeOwner, betaOwner.account.id))).toBe("not_found")
      expect((yield* people.members(acmeOwner, { limit: 50, offset: 0 })).data.map((row) => row.email)).toEqual([
        "owner@acme.example"
      ])
      expect((yield* actions(acme.id)).filter((action) => action.startsWith("key."))).toEqual([])
    }))
})

describe("the audit trail", () => {
  test("the operator's key changes, and hooks changed by a key or a person, are recorded with their actor", () =>
    Effect.gen(function* () {
      const access = yield* Access.Access
      const webhooks = yield* Webhooks.Webhooks
      const acme = yield* organisation("Acme")
      const key = yield* access.createKey(acme.id, { name: "ops", scopes: ["read"], allowed_ips: [] })
      const owner = { organisationId: acme.id, keyId: key.id }
      const hook = yield* webhooks.create(owner, { target_url: "http://hooks.example.com/a", events: ["deal.won"] })
      const admin = yield* inside(yield* join(acme.id, "admin@example.com", "admin"), acme.id)
      const rotated = yield* webhooks.rotateSecret(owner, hook.id, People.actorOf(admin))
      yield* webhooks.update(owner, hook.id, { active: false }, People.actorOf(admin))
      yield* webhooks.update(owner, hook.id, { active: false })
      yield* webhooks.remove(owner, hook.id)
      yield* access.revokeKey(key.id)
      yield* access.revokeKey(key.id)
      const entries = (yield* trail(acme.id)).filter((entry) => /^(key|hook)\./.test(entry.action))
      expect(entries.map((entry) => [entry.action, entry.actor.kind, entry.actor.id])).toEqual([
        ["key.created", "operator", null],
        ["hook.created", "key", key.id],
        ["hook.secret_rotated", "user", admin.account.id],
        ["hook.updated", "user", admin.account.id],
        ["hook.deleted", "key", key.id],
        ["key.revoked", "operator", null]
      ])
      expect(entries[1]!.summary).toEqual({
        hook_id: hook.id,
        url: "http://hooks.example.com/a",
        events: ["deal.won"],
        key_id: key.id
      })
      const text = JSON.stringify(entries)
      for (const secret of [hook.secret, rotated.secret, key.key]) expect(text).not.toContain(secret)
    }))

  test("a key's last use is written at most once a minute, off the request", () =>
    Effect.gen(function* () {
      const access = yield* Access.Access
      const acme = yield* organisation("Acme")
      const key = yield* access.createKey(acme.id, { scopes: ["read"], allowed_ips: [] })
      const lastUsed = Effect.map(
        access.listKeys(acme.id, { limit: 50, offset: 0 }),
        (page) => page.data[0]!.last_used_at
      )
      const settled = Effect.repeatN(Effect.yieldNow(), 20)
      expect(yield* lastUsed).toBeNull()
      yield* access.authenticate(key.key, HOME)
      yield* settled
      expect(yield* lastUsed).toBe(new Date(START).toISOString())
      yield* TestClock.adjust(59_000)
      yield* access.authenticate(key.key, HOME)
      yield* settled
      expect(yield* lastUsed).toBe(new Date(START).toISOString())
      yield* TestClock.adjust(1_000)
      yield* access.authenticate(key.key, HOME)
      yield* settled
      expect(yield* lastUsed).toBe(new Date(START + MINUTE).toISOString())
    }))

  test("holds no token, link or password of any flow", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const secrets: Array<string> = [PASSWORD, "a brand new passphrase", "wrong password!"]
      const invitation = yield* people.invite(acme.id, { email: "ada@example.com", role: "owner" }, People.system)
      secrets.push(tokenIn(invitation.accept_url, "invitation"))
      const signed = yield* people.acceptInvitation(
        tokenIn(invitation.accept_url, "invitation"),
        { name: "Ada", password: PASSWORD },
        client()
      )
      secrets.push(signed.token, signed.info.csrf_token)
      yield* Effect.flip(people.signIn({ email: "ada@example.com", password: "wrong password!" }, client()))
      const link = yield* mailedToken(
        acme.id,
        "ada@example.com",
        "sign-in",
        people.requestSignInLink("ada@example.com", client())
      )
      secrets.push(link, (yield* people.signInWithLink(link, client())).token)
      const reset = yield* mailedToken(
        acme.id,
        "ada@example.com",
        "reset",
        people.requestPasswordReset("ada@example.com", client())
      )
      const afterReset = yield* people.resetPassword(reset, "a brand new passphrase", client())
      secrets.push(reset, afterReset.token)
      const owner = yield* inside(afterReset, acme.id)
      const key = yield* people.createKey(owner, { name: "k", scopes: ["read"], allowed_ips: [] })
      secrets.push(key.key)
      yield* people.revokeKey(owner, key.id)
      const entries = yield* trail(acme.id)
      expect(new Set(entries.map((entry) => entry.action))).toEqual(
        new Set([
          "organisation.created",
          "invitation.created",
          "invitation.accepted",
          "user.signed_in",
          "sign_in.failed",
          "password.reset",
          "key.created",
          "key.revoked"
        ])
      )
      const text = JSON.stringify(entries)
      for (const secret of secrets) expect(text).not.toContain(secret)
      const { Tokens } = People
      for (const secret of secrets) expect(text).not.toContain(yield* Tokens.hashOf(secret))
    }))

  test("purge forgets audit entries after 400 days and people's rows past their life", () =>
    Effect.gen(function* () {
      const people = yield* People.People
      const acme = yield* organisation("Acme")
      const signed = yield* join(acme.id, "ada@example.com", "owner")
      expect(yield* people.purge).toBe(0)
      yield* TestClock.adjust(People.SESSION_ABSOLUTE_MS + MINUTE)
      expect(yield* codeOf(signedIn(signed))).toBe("session_required")
      // The invitation and the session: the trail is kept.
      expect(yield* people.purge).toBe(2)
      expect((yield* trail(acme.id)).length).toBeGreaterThan(0)
      yield* TestClock.adjust(People.AUDIT_RETENTION_DAYS * DAY)
      const fresh = yield* people.signIn({ email: "ada@example.com", password: PASSWORD }, client())
      const purged = yield* people.purge
      expect(purged).toBe(4)
      expect((yield* trail(acme.id)).map((entry) => entry.action)).toEqual(["user.signed_in"])
      yield* signedIn(fresh)
    }))
})
