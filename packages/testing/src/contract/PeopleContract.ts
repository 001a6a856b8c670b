/**
 * The people port (`People.PeopleRepository`): accounts unique by email, memberships with one role
 * per organisation, invitations, sessions and mailed links, where accepting, revoking and using
 * are compare and set (one caller wins, however many race), failed sign-ins, and the purge.
 */
import { Access, type Organisation, People, Transaction } from "@crm/core"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { contractSuite } from "./ContractCases.js"
import {
  at,
  Boom,
  expectNewestFirstPages,
  newId,
  organisation,
  organisationId,
  page,
  seed,
  sha256,
  uuid
} from "./Fixtures.js"

export const account = (overrides: Partial<People.AccountRecord> = {}): People.AccountRecord => ({
  id: newId(People.AccountId),
  email: `${uuid()}@example.test`,
  name: "Ada Lovelace",
  password_hash: null,
  created_at: at(0),
  ...overrides
})

export const invitation = (
  organisation: Organisation.OrganisationId,
  overrides: Partial<People.InvitationRecord> = {}
): People.InvitationRecord => ({
  id: newId(People.InvitationId),
  organisation_id: organisation,
  email: `${uuid()}@example.test`,
  role: "member",
  token_hash: sha256(uuid()),
  invited_by: { kind: "operator", id: null, label: "operator" },
  created_at: at(0),
  accepted_at: null,
  revoked_at: null,
  ...overrides
})

const session = (accountId: People.AccountId, overrides: Partial<People.SessionRecord> = {}): People.SessionRecord => ({
  id: newId(People.SessionId),
  token_hash: sha256(uuid()),
  account_id: accountId,
  device: null,
  address: null,
  created_at: at(0),
  last_used_at: at(0),
  revoked_at: null,
  ...overrides
})

const link = (accountId: People.AccountId, overrides: Partial<People.LinkRecord> = {}): People.LinkRecord => ({
  token_hash: sha256(uuid()),
  account_id: accountId,
  purpose: "sign_in",
  created_at: at(0),
  used_at: null,
  ...overrides
})

/** An invitation to `organisation`, stored, for the cases that accept or revoke one. */
const invited = (organisation: Organisation.OrganisationId) =>
  Effect.gen(function* () {
    const made = invitation(organisation)
    yield* (yield* People.PeopleRepository).insertInvitation(made)
    return made
  })

/** An account stored, for the cases that need a person to hang things on. */
const stored = (overrides: Partial<People.AccountRecord> = {}) =>
  Effect.gen(function* () {
    const made = account(overrides)
    expect(yield* (yield* People.PeopleRepository).insertAccount(made)).toBe(true)
    return made
  })

const byId = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)

/**
 * `callers` units of work at once, each trying `attempt` and then staying open a moment, so that
 * the others try while the first winner has not committed: what each got.
 */
const race = <A, E, R>(attempt: Effect.Effect<A, E, R>, callers = 4) =>
  Effect.flatMap(Transaction.Transaction, (tx) =>
    Effect.all(
      Array.from({ length: callers }, (_, n) => tx.run(Effect.tap(attempt, () => Effect.sleep(`${10 + n} millis`)))),
      { concurrency: "unbounded" }
    )
  )

export const suite = contractSuite("PeopleRepository storage contract", ({ test, concurrent }) => {
  test(
    "accounts round-trip by id and by email; a taken email is refused with nothing written",
    Effect.gen(function* () {
      const people = yield* People.PeopleRepository
      const ada = account({ name: 'Ada "Countess" Lovelace', password_hash: "scrypt$N=32768,r=8,p=1$salt$hash" })
      expect(yield* people.insertAccount(ada)).toBe(true)
      expect(yield* people.account(ada.id)).toEqual(Option.some(ada))
      expect(yield* people.accountByEmail(ada.email)).toEqual(Option.some(ada))
      expect(yield* people.accountByEmail(`other-${ada.email}`)).toEqual(Option.none())
      expect(yield* people.account(newId(People.AccountId))).toEqual(Option.none())

      const twin = account({ email: ada.email, name: "Someone else" })
      expect(yield* people.insertAccount(twin)).toBe(false)
      expect(yield* people.account(twin.id)).toEqual(Option.none())
      expect(yield* people.accountByEmail(ada.email)).toEqual(Option.some(ada))
      // The same id twice is a fault of the caller, not a taken email.
      expect(yield* Effect.isFailure(people.insertAccount(account({ id: ada.id })))).toBe(true)
    })
  )

  test(
    "setPassword and setName change that account only",
    Effect.gen(function* () {
      const people = yield* People.PeopleRepository
      const [ada, bob] = [yield* stored(), yield* stored({ password_hash: "old" })]
      yield* people.setPassword(ada.id, "scrypt$new")
      yield* people.setName(ada.id, "Ada Byron")
      expect(yield* people.account(ada.id)).toEqual(
        Option.some({ ...ada, password_hash: "scrypt$new", name: "Ada Byron" })
      )
      expect(yield* people.account(bob.id)).toEqual(Option.some(bob))
      // An account that does not exist is left alone, and none appears.
      const ghost = newId(People.AccountId)
      yield* people.setName(ghost, "Ghost")
      expect(yield* people.account(ghost)).toEqual(Option.none())
    })
  )

  test(
    "a membership is added, its role changed (keeping when it began), counted and removed",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const people = yield* People.PeopleRepository
      const [ada, bob] = [yield* stored(), yield* stored()]
      const adaInA: People.MembershipRecord = {
        organisation_id: a.id,
        account_id: ada.id,
        role: "owner",
        created_at: at(1)
      }
      yield* people.putMembership(adaInA)
      yield* people.putMembership({ organisation_id: a.id, account_id: bob.id, role: "admin", created_at: at(2) })
      yield* people.putMembership({ organisation_id: b.id, account_id: bob.id, role: "owner", created_at: at(3) })
      expect(yield* people.membership(a.id, ada.id)).toEqual(Option.some(adaInA))
      expect(yield* people.membership(b.id, ada.id)).toEqual(Option.none())
      expect(yield* people.countOwners(a.id)).toBe(1)

      yield* people.putMembership({ ...adaInA, role: "member", created_at: at(9) })
      expect(yield* people.membership(a.id, ada.id)).toEqual(Option.some({ ...adaInA, role: "member" }))
      expect(yield* people.countOwners(a.id)).toBe(0)
      yield* people.putMembership({ organisation_id: a.id, account_id: bob.id, role: "owner", created_at: at(9) })
      expect(yield* people.countOwners(a.id)).toBe(1)
      expect(yield* people.countOwners(b.id)).toBe(1)
      expect(yield* people.countOwners(organisationId())).toBe(0)

      expect(yield* people.removeMembership(a.id, ada.id)).toBe(true)
      expect(yield* people.removeMembership(a.id, ada.id)).toBe(false)
      expect(yield* people.membership(a.id, ada.id)).toEqual(Option.none())
      expect(yield* people.membership(a.id, bob.id)).toEqual(
        Option.some({ organisation_id: a.id, account_id: bob.id, role: "owner", created_at: at(2) })
      )
    })
  )

  test(
    "a membership names an organisation and an account the store holds",
    Effect.gen(function* () {
      const { a } = yield* seed
      const people = yield* People.PeopleRepository
      const ada = yield* stored()
      const refused = (membership: People.MembershipRecord) => Effect.isFailure(people.putMembership(membership))
      const base = { organisation_id: a.id, account_id: ada.id, role: "member" as const, created_at: at(0) }
      expect(yield* refused({ ...base, organisation_id: organisationId() })).toBe(true)
      expect(yield* refused({ ...base, account_id: newId(People.AccountId) })).toBe(true)
      expect(yield* people.membershipsOf(ada.id)).toEqual([])
    })
  )

  test(
    "membershipsOf: every organisation of the person with its name, oldest membership first (ties by organisation id)",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const c = organisation("Gamma")
      yield* (yield* Access.AccessRepository).insertOrganisation(c, at(0))
      const people = yield* People.PeopleRepository
      const [ada, bob] = [yield* stored(), yield* stored()]
      yield* people.putMembership({ organisation_id: b.id, account_id: ada.id, role: "member", created_at: at(5) })
      yield* people.putMembership({ organisation_id: c.id, account_id: ada.id, role: "admin", created_at: at(1) })
      yield* people.putMembership({ organisation_id: a.id, account_id: ada.id, role: "owner", created_at: at(1) })
      yield* people.putMembership({ organisation_id: a.id, account_id: bob.id, role: "admin", created_at: at(0) })
      const tied = [
        { organisation_id: a.id, account_id: ada.id, role: "owner", created_at: at(1), organisation_name: "Alpha" },
        { organisation_id: c.id, account_id: ada.id, role: "admin", created_at: at(1), organisation_name: "Gamma" }
      ].sort((x, y) => byId(x.organisation_id, y.organisation_id))
      expect(yield* people.membershipsOf(ada.id)).toEqual([
        ...tied,
        { organisation_id: b.id, account_id: ada.id, role: "member", created_at: at(5), organisation_name: "Beta" }
      ])
      expect(yield* people.membershipsOf(newId(People.AccountId))).toEqual([])
    })
  )

  test(
    "members: the organisation's people with email and name, oldest first (ties by account id), at most limit + 1",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const people = yield* People.PeopleRepository
      const accounts = [yield* stored(), yield* stored(), yield* stored(), yield* stored()]
      const times = [3, 1, 3, 0]
      for (const [n, person] of accounts.entries()) {
        yield* people.putMembership({
          organisation_id: a.id,
          account_id: person.id,
          role: n === 0 ? "owner" : "member",
          created_at: at(times[n]!)
        })
      }
      yield* people.putMembership({
        organisation_id: b.id,
        account_id: accounts[0]!.id,
        role: "owner",
        created_at: at(0)
      })
      const expected = accounts
        .map((person, n) => ({
          organisation_id: a.id,
          account_id: person.id,
          role: n === 0 ? "owner" : "member",
          created_at: at(times[n]!),
          email: person.email,
          name: person.name
        }))
        .sort((x, y) => byId(x.created_at, y.created_at) || byId(x.account_id, y.account_id))
      expect(yield* people.members(a.id, page(10))).toEqual(expected)
      expect(yield* people.members(a.id, page(2))).toEqual(expected.slice(0, 3))
      expect(yield* people.members(a.id, page(2, 2))).toEqual(expected.slice(2, 4))
      expect(yield* people.members(a.id, page(2, 4))).toEqual([])
      expect((yield* people.members(b.id, page(10))).map((member) => member.account_id)).toEqual([accounts[0]!.id])
      expect(yield* people.members(organisationId(), page(10))).toEqual([])
    })
  )

  test(
    "invitations round-trip by token hash and by id within their organisation; pages newest first (ties by id descending)",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const people = yield* People.PeopleRepository
      const ada = yield* stored()
      const full = invitation(a.id, {
        role: "admin",
        invited_by: { kind: "user", id: ada.id, label: ada.email },
        created_at: at(7)
      })
      yield* people.insertInvitation(full)
      expect(yield* people.invitationByTokenHash(full.token_hash)).toEqual(Option.some(full))
      expect(yield* people.invitation(a.id, full.id)).toEqual(Option.some(full))
      expect(yield* people.invitation(b.id, full.id)).toEqual(Option.none())
      expect(yield* people.invitationByTokenHash(sha256("unknown"))).toEqual(Option.none())
      expect(yield* people.invitations(b.id, page(10))).toEqual([])
      // A token hash is unique, like a key's.
      const twin = invitation(a.id, { token_hash: full.token_hash })
      expect(yield* Effect.isFailure(people.insertInvitation(twin))).toBe(true)
      // An invitation to an organisation the store does not hold is refused.
      expect(yield* Effect.isFailure(people.insertInvitation(invitation(organisationId())))).toBe(true)

      yield* expectNewestFirstPages(
        (created_at) => invitation(b.id, { created_at }),
        people.insertInvitation,
        (limit, offset) => people.invitations(b.id, page(limit, offset))
      )
    })
  )

  test(
    "an invitation is accepted or revoked once, never both",
    Effect.gen(function* () {
      const { a } = yield* seed
      const people = yield* People.PeopleRepository
      const [accepted, revoked] = [yield* invited(a.id), yield* invited(a.id)]

      expect(yield* people.acceptInvitation(accepted.id, at(10))).toBe(true)
      expect(yield* people.acceptInvitation(accepted.id, at(20))).toBe(false)
      expect(yield* people.revokeInvitation(accepted.id, at(30))).toBe(false)
      expect(yield* people.invitation(a.id, accepted.id)).toEqual(Option.some({ ...accepted, accepted_at: at(10) }))

      expect(yield* people.revokeInvitation(revoked.id, at(10))).toBe(true)
      expect(yield* people.revokeInvitation(revoked.id, at(20))).toBe(false)
      expect(yield* people.acceptInvitation(revoked.id, at(30))).toBe(false)
      expect(yield* people.invitation(a.id, revoked.id)).toEqual(Option.some({ ...revoked, revoked_at: at(10) }))

      expect(yield* people.acceptInvitation(newId(People.InvitationId), at(10))).toBe(false)
      expect(yield* people.revokeInvitation(newId(People.InvitationId), at(10))).toBe(false)
    })
  )

  concurrent(
    "callers racing to accept or revoke one invitation: exactly one wins, and the invitation says which",
    Effect.gen(function* () {
      const { a } = yield* seed
      const people = yield* People.PeopleRepository
      const accepted = yield* invited(a.id)
      const acceptances = yield* race(people.acceptInvitation(accepted.id, at(10)))
      expect(acceptances.filter((won) => won)).toHaveLength(1)

      const contested = yield* invited(a.id)
      const outcomes = yield* Effect.all(
        [
          race(people.acceptInvitation(contested.id, at(20)), 3),
          race(people.revokeInvitation(contested.id, at(30)), 3)
        ],
        { concurrency: "unbounded" }
      )
      const [acceptedBy, revokedBy] = outcomes.map((results) => results.filter((won) => won).length)
      expect(acceptedBy! + revokedBy!).toBe(1)
      const settled = Option.getOrThrow(yield* people.invitation(a.id, contested.id))
      expect(settled.accepted_at).toBe(acceptedBy === 1 ? at(20) : null)
      expect(settled.revoked_at).toBe(revokedBy === 1 ? at(30) : null)
    }),
    120_000
  )

  test(
    "sessions: found by token hash with their person, revoked ones too; touching keeps the later time",
    Effect.gen(function* () {
      const people = yield* People.PeopleRepository
      const ada = yield* stored({ password_hash: "scrypt$x" })
      const mine = session(ada.id, {
        device: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
        address: "2001:db8::1",
        created_at: at(1),
        last_used_at: at(1)
      })
      yield* people.insertSession(mine)
      expect(yield* people.sessionByTokenHash(mine.token_hash)).toEqual(Option.some({ session: mine, account: ada }))
      expect(yield* people.sessionByTokenHash(sha256("unknown"))).toEqual(Option.none())

      yield* people.touchSession(mine.id, at(50))
      yield* people.touchSession(mine.id, at(40))
      expect(Option.getOrThrow(yield* people.sessionByTokenHash(mine.token_hash)).session.last_used_at).toBe(at(50))

      expect(yield* people.revokeSession(ada.id, mine.id, at(60))).toBe(true)
      expect(yield* people.sessionByTokenHash(mine.token_hash)).toEqual(
        Option.some({ session: { ...mine, last_used_at: at(50), revoked_at: at(60) }, account: ada })
      )
      // A token hash is unique; a session names an account the store holds.
      const refused = (made: People.SessionRecord) => Effect.isFailure(people.insertSession(made))
      expect(yield* refused(session(ada.id, { token_hash: mine.token_hash }))).toBe(true)
      expect(yield* refused(session(newId(People.AccountId)))).toBe(true)
    })
  )

  test(
    "sessionsOf lists the person's live sessions newest first; revokeSession ends only one's own, once; revokeSessions the rest",
    Effect.gen(function* () {
      const people = yield* People.PeopleRepository
      const [ada, bob] = [yield* stored(), yield* stored()]
      const [older, twinA, twinB, newest] = [1, 5, 5, 9].map((t) => session(ada.id, { created_at: at(t) }))
      const bobs = session(bob.id, { created_at: at(3) })
      for (const made of [twinA!, older!, bobs, newest!, twinB!]) yield* people.insertSession(made)
      const twins = [twinA!, twinB!].sort((x, y) => byId(y.id, x.id))
      expect(yield* people.sessionsOf(ada.id)).toEqual([newest, ...twins, older])

      expect(yield* people.revokeSession(bob.id, newest!.id, at(20))).toBe(false)
      expect(yield* people.revokeSession(ada.id, newest!.id, at(20))).toBe(true)
      expect(yield* people.revokeSession(ada.id, newest!.id, at(21))).toBe(false)
      expect(yield* people.revokeSession(ada.id, newId(People.SessionId), at(21))).toBe(false)
      expect(yield* people.sessionsOf(ada.id)).toEqual([...twins, older])

      expect(yield* people.revokeSessions(ada.id, at(30))).toBe(3)
      expect(yield* people.revokeSessions(ada.id, at(31))).toBe(0)
      expect(yield* people.sessionsOf(ada.id)).toEqual([])
      // The first revocation's time stays; another person's sessions are untouched.
      expect(Option.getOrThrow(yield* people.sessionByTokenHash(newest!.token_hash)).session.revoked_at).toBe(at(20))
      expect(Option.getOrThrow(yield* people.sessionByTokenHash(older!.token_hash)).session.revoked_at).toBe(at(30))
      expect(yield* people.sessionsOf(bob.id)).toEqual([bobs])
    })
  )

  test(
    "a mailed link is used once: the first use returns it marked used, later ones nothing",
    Effect.gen(function* () {
      const people = yield* People.PeopleRepository
      const ada = yield* stored()
      const reset = link(ada.id, { purpose: "password_reset", created_at: at(3) })
      yield* people.insertLink(reset)
      expect(yield* people.useLink(reset.token_hash, at(10))).toEqual(Option.some({ ...reset, used_at: at(10) }))
      expect(yield* people.useLink(reset.token_hash, at(11))).toEqual(Option.none())
      expect(yield* people.useLink(sha256("unknown"), at(11))).toEqual(Option.none())
      const refused = (made: People.LinkRecord) => Effect.isFailure(people.insertLink(made))
      expect(yield* refused(link(ada.id, { token_hash: reset.token_hash }))).toBe(true)
      expect(yield* refused(link(newId(People.AccountId)))).toBe(true)
    })
  )

  concurrent(
    "callers racing to use one link: exactly one gets it",
    Effect.gen(function* () {
      const people = yield* People.PeopleRepository
      const ada = yield* stored()
      const signIn = link(ada.id)
      yield* people.insertLink(signIn)
      const uses = yield* race(people.useLink(signIn.token_hash, at(10)), 6)
      expect(uses.filter(Option.isSome)).toEqual([Option.some({ ...signIn, used_at: at(10) })])
    }),
    120_000
  )

  test(
    "failed sign-ins are counted per subject; failuresSince gives their times from `since` on, oldest first",
    Effect.gen(function* () {
      const people = yield* People.PeopleRepository
      const subject = "account:ada@example.test"
      for (const t of [30, 10, 20, 20]) yield* people.recordFailure(subject, at(t))
      yield* people.recordFailure("address:192.0.2.1", at(25))
      expect(yield* people.failuresSince(subject, at(0))).toEqual([at(10), at(20), at(20), at(30)])
      expect(yield* people.failuresSince(subject, at(20))).toEqual([at(20), at(20), at(30)])
      expect(yield* people.failuresSince(subject, at(31))).toEqual([])
      expect(yield* people.failuresSince("address:192.0.2.1", at(0))).toEqual([at(25)])
      expect(yield* people.failuresSince("address:192.0.2.2", at(0))).toEqual([])
    })
  )

  test(
    "purge forgets failures, links and invitations made, and sessions last used, before the cutoff; it counts them",
    Effect.gen(function* () {
      const { a } = yield* seed
      const people = yield* People.PeopleRepository
      const ada = yield* stored()
      const cutoff = at(100)
      for (const t of [10, 99, 100, 150]) yield* people.recordFailure("address:192.0.2.1", at(t))
      const [oldLink, usedLink, newLink] = [
        link(ada.id, { created_at: at(50) }),
        link(ada.id, { created_at: at(60), used_at: at(120) }),
        link(ada.id, { created_at: at(100) })
      ]
      const [idle, busy] = [
        session(ada.id, { created_at: at(10), last_used_at: at(99) }),
        session(ada.id, { created_at: at(10), last_used_at: at(100) })
      ]
      const [oldInvitation, newInvitation] = [
        invitation(a.id, { created_at: at(20), accepted_at: at(30) }),
        invitation(a.id, { created_at: at(140) })
      ]
      for (const made of [oldLink, usedLink, newLink]) yield* people.insertLink(made)
      for (const made of [idle, busy]) yield* people.insertSession(made)
      for (const made of [oldInvitation, newInvitation]) yield* people.insertInvitation(made)

      expect(yield* people.purge(cutoff)).toBe(2 + 2 + 1 + 1)
      expect(yield* people.failuresSince("address:192.0.2.1", at(0))).toEqual([at(100), at(150)])
      expect(yield* people.useLink(oldLink.token_hash, at(200))).toEqual(Option.none())
      expect(yield* people.useLink(usedLink.token_hash, at(200))).toEqual(Option.none())
      expect(Option.isSome(yield* people.useLink(newLink.token_hash, at(200)))).toBe(true)
      expect(yield* people.sessionByTokenHash(idle.token_hash)).toEqual(Option.none())
      expect(yield* people.sessionsOf(ada.id)).toEqual([busy])
      expect(yield* people.invitations(a.id, page(10))).toEqual([newInvitation])
      expect(yield* people.invitationByTokenHash(oldInvitation.token_hash)).toEqual(Option.none())
      // A new row may take a purged one's token hash: nothing of it is left behind.
      yield* people.insertSession(session(ada.id, { token_hash: idle.token_hash, last_used_at: at(200) }))
      expect(yield* people.purge(cutoff)).toBe(0)
      // The accounts themselves stay.
      expect(yield* people.account(ada.id)).toEqual(Option.some(ada))
    })
  )

  test(
    "every write joins the caller's unit of work: a unit that fails leaves none of them",
    Effect.gen(function* () {
      const { a } = yield* seed
      const people = yield* People.PeopleRepository
      const tx = yield* Transaction.Transaction
      const ada = account()
      const signIn = link(ada.id)
      const pending = invitation(a.id)
      const before = yield* stored()
      const beforeLink = link(before.id)
      yield* people.insertLink(beforeLink)
      const failed = yield* Effect.either(
        tx.run(
          Effect.gen(function* () {
            yield* people.insertAccount(ada)
            yield* people.putMembership({
              organisation_id: a.id,
              account_id: ada.id,
              role: "owner",
              created_at: at(0)
            })
            yield* people.insertSession(session(ada.id))
            yield* people.insertLink(signIn)
            yield* people.insertInvitation(pending)
            yield* people.recordFailure("address:192.0.2.1", at(0))
            expect(Option.isSome(yield* people.useLink(beforeLink.token_hash, at(1)))).toBe(true)
            return yield* new Boom({ step: "after the writes" })
          })
        )
      )
      expect(Either.isLeft(failed)).toBe(true)
      expect(yield* people.account(ada.id)).toEqual(Option.none())
      expect(yield* people.membershipsOf(ada.id)).toEqual([])
      expect(yield* people.sessionsOf(ada.id)).toEqual([])
      expect(yield* people.invitations(a.id, page(10))).toEqual([])
      expect(yield* people.failuresSince("address:192.0.2.1", at(0))).toEqual([])
      // The link used inside the unit is unused again.
      expect(yield* people.useLink(beforeLink.token_hash, at(2))).toEqual(
        Option.some({ ...beforeLink, used_at: at(2) })
      )
    })
  )
})
