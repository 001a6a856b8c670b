/**
 * The `People` service over its ports: what `PeopleService.ts` promises, with the rules of
 * `Roles.ts` and `Expiry.ts`. Every change is recorded in the audit trail in the unit of work that
 * makes it; a unit that fails records nothing.
 *
 * Slow password hashing never runs inside a unit of work (it would hold the store for its length):
 * what a token names is checked first, the password hashed or verified next, and the change made
 * last, with compare-and-set writes that make sure a token is used once.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AccessRepository } from "../Access/AccessRepository.js"
import type { Scope } from "../Access/AccessSchemas.js"
import { OAuthStore } from "../Access/OAuthStore.js"
import { Access } from "../Access.js"
import {
  AlreadyMember,
  Forbidden,
  InvalidCredentials,
  InvalidLink,
  LastOwner,
  NotFound,
  OwnerOnly,
  RateLimited,
  ScopeNotAllowed,
  SessionRequired,
  type StorageError
} from "../Errors.js"
import { brand, Ids } from "../Ids.js"
import { operation } from "../internal/operation.js"
import { Mailer } from "../Mail.js"
import type { OrganisationId } from "../Organisation.js"
import { Transaction } from "../Transaction.js"
import { normaliseEmail, toPage } from "../Wire.js"
import type { Actor } from "./Actor.js"
import * as Auditing from "./Auditing.js"
import { AuditLog, type AuditRecord } from "./AuditLog.js"
import {
  FAILURE_WINDOW_MS,
  INVITATION_MS,
  LINK_MS,
  linkState,
  MAX_FAILURES,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  sessionState,
  throttle
} from "./Expiry.js"
import { PasswordHasher } from "./PasswordHasher.js"
import { AccountId, InvitationId, SessionId } from "./PeopleIds.js"
import {
  type AccountRecord,
  type InvitationRecord,
  type LinkPurpose,
  type MembershipRecord,
  PeopleRepository,
  type SessionRecord
} from "./PeopleRepository.js"
import {
  AUDIT_RETENTION_DAYS,
  type AuditEntry,
  type Invitation,
  type Member,
  type Person,
  type SessionInfo,
  type SessionView
} from "./PeopleSchemas.js"
import {
  actorOf,
  type Client,
  type MemberPrincipal,
  People,
  type PeopleOptions,
  type SignedIn
} from "./PeopleService.js"
import * as Roles from "./Roles.js"
import * as Tokens from "./Tokens.js"

const DAY_MS = 24 * 60 * 60 * 1000
/** A session's `last_used_at` is written at most this often: idle expiry is measured in hours. */
const TOUCH_EVERY_MS = 60_000
/** What a User-Agent is cut to before it is stored and listed. */
const MAX_DEVICE = 200
/**
 * Rows of sessions, invitations, links and failures are kept this long after their last use: the
 * longest any of them means anything (a session's absolute life), so an expired invitation is
 * still listed as expired for a while.
 */
const PEOPLE_PURGE_MS = SESSION_ABSOLUTE_MS

const iso = (ms: number) => new Date(ms).toISOString()

// One text for every refused sign-in (unknown address, wrong password, no password set), so
// that the answer tells nothing of which it was.
const invalidCredentials = () => new InvalidCredentials({ detail: "the email or the password is not right" })
const invalidLink = () =>
  new InvalidLink({ detail: "the link is not valid: it is unknown, used, revoked or expired; ask for a new one" })
const sessionRequired = () => new SessionRequired({ detail: "sign in first: the session is missing or has ended" })

const forbidden = () => new Forbidden({ detail: "your role in this organisation does not allow it" })

/** Scopes a person may give a key or an app they make: at most their role's (`Roles.mayGrantScopes`). */
const grantable = (member: MemberPrincipal, scopes: ReadonlyArray<Scope>) =>
  Either.isLeft(Roles.mayGrantScopes(member.role, scopes))
    ? Effect.fail(new ScopeNotAllowed({ detail: `a member may give only ${Roles.MEMBER_SCOPES.join(" and ")}` }))
    : Effect.void
const ownerOnly = () => new OwnerOnly({ detail: "only an owner makes, unmakes, invites or removes an owner" })

const refused = (refusal: Exclude<Roles.Refusal, "scope_not_allowed">): Forbidden | OwnerOnly | LastOwner => {
  switch (refusal) {
    case "forbidden":
      return forbidden()
    case "owner_only":
      return ownerOnly()
    case "last_owner":
      return new LastOwner({ detail: "the organisation would be left without an owner" })
  }
}

/** For the rules about people and keys, which never answer `scope_not_allowed` (that is `mayGrantScopes`'s). */
const allowed = (
  decision: Either.Either<void, Roles.Refusal>
): Effect.Effect<void, Forbidden | OwnerOnly | LastOwner> =>
  Either.isRight(decision) ? Effect.void : refused(decision.left === "scope_not_allowed" ? "forbidden" : decision.left)

const toPerson = (account: AccountRecord): Person => ({
  id: account.id,
  email: account.email,
  name: account.name,
  created_at: account.created_at
})

const sessionExpiry = (session: SessionRecord): string =>
  iso(
    Math.min(Date.parse(session.created_at) + SESSION_ABSOLUTE_MS, Date.parse(session.last_used_at) + SESSION_IDLE_MS)
  )

const sessionTimes = (session: SessionRecord) => ({
  created_at: Date.parse(session.created_at),
  last_used_at: Date.parse(session.last_used_at),
  revoked_at: session.revoked_at === null ? null : Date.parse(session.revoked_at)
})

const invitationState = (invitation: InvitationRecord, now: number) =>
  linkState(
    {
      created_at: Date.parse(invitation.created_at),
      used_at: invitation.accepted_at === null ? null : Date.parse(invitation.accepted_at),
      revoked_at: invitation.revoked_at === null ? null : Date.parse(invitation.revoked_at)
    },
    INVITATION_MS,
    now
  )

const toInvitation = (invitation: InvitationRecord, now: number): Invitation => {
  const state = invitationState(invitation, now)
  return {
    id: invitation.id,
    organisation_id: invitation.organisation_id,
    email: invitation.email,
    role: invitation.role,
    status: state === "used" ? "accepted" : state,
    invited_by: invitation.invited_by.label ?? invitation.invited_by.kind,
    created_at: invitation.created_at,
    expires_at: iso(Date.parse(invitation.created_at) + INVITATION_MS)
  }
}

const toMember = (row: MembershipRecord & { readonly email: string; readonly name: string }): Member => ({
  user_id: row.account_id,
  email: row.email,
  name: row.name,
  role: row.role,
  joined_at: row.created_at
})

const toAuditEntry = (record: AuditRecord): AuditEntry => ({
  id: record.id,
  at: record.at,
  actor: { ...record.actor },
  action: record.action,
  target: record.target === null ? null : { ...record.target },
  address: record.address,
  summary: { ...record.summary }
})

/** A person acting on their own account: what the trail says of sign-ins, sign-outs and resets. */
const userActor = (account: AccountRecord, address: string | null): Actor => ({
  kind: "user",
  id: account.id,
  label: account.email,
  address
})

export const make = (options: PeopleOptions) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const repo = yield* PeopleRepository
    const hasher = yield* PasswordHasher
    const keys = yield* AccessRepository
    const access = yield* Access
    const oauth = yield* OAuthStore
    const mailer = yield* Mailer
    const tx = yield* Transaction
    const log = yield* AuditLog
    const record = Auditing.recorder(log, ids)
    const base = options.publicUrl.replace(/\/+$/, "")
    const linkTo = (fragment: string, token: string) => `${base}/settings#${fragment}=${token}`
    // Checked against when there is no password to check (an unknown address, an account without a
    // password), so that such a refusal takes as long as a wrong password.
    // Made in the background as the service starts (a hash costs what a check does, and a server
    // should start at once); a first check that comes sooner waits for it.
    const dummyHash = yield* Effect.cached(Effect.flatMap(Tokens.generate, hasher.hash))
    yield* Effect.forkDaemon(dummyHash)

    /**
     * What a person does to their own account goes into the trail of each organisation they belong
     * to, or into none (organisation null) when they belong to none.
     */
    const recordIn = (
      memberships: ReadonlyArray<MembershipRecord>,
      change: Omit<Auditing.Change, "organisationId">
    ): Effect.Effect<void, StorageError> =>
      memberships.length === 0
        ? record({ ...change, organisationId: null })
        : Effect.forEach(
            memberships,
            (membership) => record({ ...change, organisationId: membership.organisation_id }),
            {
              discard: true
            }
          )

    const recordForAccount = (accountId: AccountId, change: Omit<Auditing.Change, "organisationId">) =>
      Effect.flatMap(repo.membershipsOf(accountId), (memberships) => recordIn(memberships, change))

    // Password checks under way in this process, by subject, each counted as a failure until it
    // ends: a burst of attempts sent at once would otherwise all pass the throttle before the
    // first failure is written, and queue that many slow hashes ahead of everyone else's work.
    const inFlight = new Map<string, number>()
    const checking = <A, E, R>(subjects: ReadonlyArray<string>, check: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          for (const subject of subjects) inFlight.set(subject, (inFlight.get(subject) ?? 0) + 1)
        }),
        () => check,
        () =>
          Effect.sync(() => {
            for (const subject of subjects) {
              const left = (inFlight.get(subject) ?? 1) - 1
              if (left === 0) inFlight.delete(subject)
              else inFlight.set(subject, left)
            }
          })
      )

    /** `own`: the checks under way that are the caller's own (counted in `inFlight` already). */
    const checkThrottle = (subjects: ReadonlyArray<string>, now: number, own = 0) =>
      Effect.gen(function* () {
        let wait = 0
        for (const subject of subjects) {
          const failures = yield* repo.failuresSince(subject, iso(now - FAILURE_WINDOW_MS))
          const decision = throttle(
            [
              ...failures.map((at) => Date.parse(at)),
              ...Array.from({ length: (inFlight.get(subject) ?? 0) - own }, () => now)
            ],
            now
          )
          if (!decision.allowed) wait = Math.max(wait, decision.retryAfterSeconds)
        }
        if (wait > 0) {
          return yield* new RateLimited({
            detail: "too many failed attempts: wait before trying again",
            retryAfterSeconds: wait,
            limit: MAX_FAILURES
          })
        }
      })

    const infoOf = (
      account: AccountRecord,
      memberships: ReadonlyArray<MembershipRecord & { readonly organisation_name: string }>,
      session: SessionRecord,
      csrfToken: string
    ): SessionInfo => ({
      user: toPerson(account),
      organisations: memberships.map((membership) => ({
        id: membership.organisation_id,
        name: membership.organisation_name,
        role: membership.role
      })),
      session: { id: session.id, created_at: session.created_at, expires_at: sessionExpiry(session) },
      csrf_token: csrfToken
    })

    /** Inside a unit of work: a new session for the person, recorded as a sign-in. */
    const begin = (account: AccountRecord, client: Client, method: string): Effect.Effect<SignedIn, StorageError> =>
      Effect.gen(function* () {
        const token = yield* Tokens.generate
        const at = iso(yield* Clock.currentTimeMillis)
        const session: SessionRecord = {
          id: brand(SessionId, ids.next()),
          token_hash: yield* Tokens.hashOf(token),
          account_id: account.id,
          device: client.device === null ? null : client.device.slice(0, MAX_DEVICE),
          address: client.address,
          created_at: at,
          last_used_at: at,
          revoked_at: null
        }
        yield* repo.insertSession(session)
        const memberships = yield* repo.membershipsOf(account.id)
        yield* recordIn(memberships, {
          actor: userActor(account, client.address),
          action: "user.signed_in",
          target: { kind: "session", id: session.id },
          summary: { method }
        })
        return { token, info: infoOf(account, memberships, session, yield* Tokens.csrfTokenOf(token)) }
      })

    /** Inside a unit of work: uses a mailed link once, and names its person. */
    const useLink = (token: string, purpose: LinkPurpose) =>
      Effect.gen(function* () {
        if (!Tokens.isWellFormed(token)) return yield* invalidLink()
        const now = yield* Clock.currentTimeMillis
        const link = yield* repo.useLink(yield* Tokens.hashOf(token), iso(now))
        if (
          Option.isNone(link) ||
          link.value.purpose !== purpose ||
          linkState(
            { created_at: Date.parse(link.value.created_at), used_at: null, revoked_at: null },
            LINK_MS,
            now
          ) !== "pending"
        ) {
          return yield* invalidLink()
        }
        const account = yield* repo.account(link.value.account_id)
        if (Option.isNone(account)) return yield* invalidLink()
        return account.value
      })

    /**
     * Mails a one-time link to the address's person, in the organisation they joined first (whose
     * outbox and mail settings carry it). Each request counts against the client's address, as a
     * failed sign-in does, so that the outbox cannot be flooded from one place.
     */
    const requestLink = (purpose: LinkPurpose) => (email: string, client: Client) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const subject = `address:${client.address}`
        yield* checkThrottle([subject], now)
        yield* tx.run(
          Effect.gen(function* () {
            yield* repo.recordFailure(subject, iso(now))
            const account = yield* repo.accountByEmail(normaliseEmail(email))
            if (Option.isNone(account)) return
            const memberships = yield* repo.membershipsOf(account.value.id)
            if (memberships.length === 0) return
            const token = yield* Tokens.generate
            yield* repo.insertLink({
              token_hash: yield* Tokens.hashOf(token),
              account_id: account.value.id,
              purpose,
              created_at: iso(now),
              used_at: null
            })
            const minutes = LINK_MS / 60_000
            yield* mailer.send(memberships[0]!.organisation_id, {
              to: account.value.email,
              sensitive: true,
              ...(purpose === "sign_in"
                ? {
                    subject: "Your sign-in link",
                    body: `Sign in with this link within ${minutes} minutes; it works once:\n\n${linkTo("sign-in", token)}\n\nIf you did not ask for it, ignore this message.\n`
                  }
                : {
                    subject: "Reset your password",
                    body: `Choose a new password with this link within ${minutes} minutes; it works once:\n\n${linkTo("reset", token)}\n\nIf you did not ask for it, ignore this message: your password stays as it is.\n`
                  })
            })
          })
        )
      })

    const invite = operation("People.invite")(function* (
      organisationId: OrganisationId,
      input: { readonly email: string; readonly role: Roles.Role },
      by: Actor
    ) {
      const organisation = yield* keys.getOrganisation(organisationId)
      if (Option.isNone(organisation)) return yield* new NotFound({ detail: "no such organisation" })
      const email = normaliseEmail(input.email)
      const token = yield* Tokens.generate
      const now = yield* Clock.currentTimeMillis
      const invitation: InvitationRecord = {
        id: brand(InvitationId, ids.next()),
        organisation_id: organisationId,
        email,
        role: input.role,
        token_hash: yield* Tokens.hashOf(token),
        invited_by: { kind: by.kind, id: by.id, label: by.label },
        created_at: iso(now),
        accepted_at: null,
        revoked_at: null
      }
      const url = linkTo("invitation", token)
      yield* tx.run(
        Effect.gen(function* () {
          const account = yield* repo.accountByEmail(email)
          if (Option.isSome(account) && Option.isSome(yield* repo.membership(organisationId, account.value.id))) {
            return yield* new AlreadyMember({ detail: "the address already belongs to the organisation" })
          }
          yield* repo.insertInvitation(invitation)
          yield* record({
            organisationId,
            actor: by,
            action: "invitation.created",
            target: { kind: "invitation", id: invitation.id },
            summary: { email, role: input.role }
          })
          const name = organisation.value.name
          yield* mailer.send(organisationId, {
            to: email,
            subject: `You are invited to ${name}`,
            body: `${by.kind === "user" ? (by.label ?? "Someone") : "The operator"} invites you to ${name} as ${input.role}.\n\nAccept within ${INVITATION_MS / DAY_MS} days with this link:\n\n${url}\n\nIf you did not expect it, ignore this message.\n`,
            sensitive: true
          })
        })
      )
      return { ...toInvitation(invitation, now), accept_url: url }
    })

    /** The person's role now, read in the caller's unit of work: one demoted meanwhile acts as demoted. */
    const currentRole = (organisationId: OrganisationId, accountId: AccountId) =>
      Effect.flatMap(
        repo.membership(organisationId, accountId),
        Option.match({
          onNone: () => Effect.fail(new NotFound({ detail: "no such organisation" })),
          onSome: (membership) => Effect.succeed(membership.role)
        })
      )

    const memberOf = (organisationId: OrganisationId, accountId: AccountId) =>
      Effect.flatMap(
        Effect.zip(repo.membership(organisationId, accountId), repo.account(accountId)),
        ([membership, account]) =>
          Option.isSome(membership) && Option.isSome(account)
            ? Effect.succeed({ ...membership.value, email: account.value.email, name: account.value.name })
            : Effect.fail(new NotFound({ detail: "no such user in this organisation" }))
      )

    /**
     * The account behind an address, if the password is its own. Throttled per account and per
     * address before anything is checked; one answer and a like time for an unknown address, an
     * account without a password and a wrong password (each checks a hash); each failure counted.
     */
    const checkPassword = (
      account: Option.Option<AccountRecord>,
      password: string,
      client: Client,
      email = Option.match(account, { onNone: () => "", onSome: (found) => found.email })
    ) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const subjects = [`account:${email}`, `address:${client.address}`]
        return yield* checking(
          subjects,
          Effect.gen(function* () {
            yield* checkThrottle(subjects, now, 1)
            const stored = Option.flatMap(account, (found) => Option.fromNullable(found.password_hash))
            const matches = yield* hasher.verify(password, Option.isSome(stored) ? stored.value : yield* dummyHash)
            if (Option.isSome(account) && Option.isSome(stored) && matches) return account.value
            yield* tx.run(
              Effect.gen(function* () {
                for (const subject of subjects) yield* repo.recordFailure(subject, iso(now))
                const failed = {
                  actor: { kind: "anonymous", id: null, label: null, address: client.address } as const,
                  action: "sign_in.failed",
                  summary: { email }
                }
                yield* Option.isSome(account)
                  ? recordForAccount(account.value.id, { ...failed, target: { kind: "user", id: account.value.id } })
                  : record({ ...failed, organisationId: null, target: null })
              })
            )
            return yield* invalidCredentials()
          })
        )
      })

    const require: People["Type"]["require"] = (member, action) =>
      Roles.may(member.role, action)
        ? Effect.void
        : Effect.fail(new Forbidden({ detail: `your role (${member.role}) does not allow ${action}` }))

    return People.of({
      invite,

      acceptInvitation: operation("People.acceptInvitation")(function* (token, input, client) {
        if (!Tokens.isWellFormed(token)) return yield* invalidLink()
        const found = yield* repo.invitationByTokenHash(yield* Tokens.hashOf(token))
        if (Option.isNone(found) || invitationState(found.value, yield* Clock.currentTimeMillis) !== "pending") {
          return yield* invalidLink()
        }
        const invitation = found.value
        // An address that has an account already joins with it, and only with its password: the
        // invitation's link is shown to whoever invited, who must not gain the account by it. An
        // account without a password sets one by a reset link first, mailed to the address.
        const existing = yield* repo.accountByEmail(invitation.email)
        if (Option.isSome(existing)) {
          yield* checkPassword(existing, input.password, client)
        }
        const passwordHash = Option.isSome(existing) ? null : yield* hasher.hash(input.password)
        return yield* tx.run(
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            if (
              invitationState(invitation, now) !== "pending" ||
              !(yield* repo.acceptInvitation(invitation.id, iso(now)))
            ) {
              return yield* invalidLink()
            }
            let account: AccountRecord
            if (Option.isSome(existing)) {
              account = existing.value
            } else {
              account = {
                id: brand(AccountId, ids.next()),
                email: invitation.email,
                name: input.name,
                password_hash: passwordHash,
                created_at: iso(now)
              }
              // Someone made an account for the address meanwhile: accepting again checks its password.
              if (!(yield* repo.insertAccount(account))) return yield* invalidCredentials()
            }
            // One already there (by another invitation) keeps the role they have.
            if (Option.isNone(yield* repo.membership(invitation.organisation_id, account.id))) {
              yield* repo.putMembership({
                organisation_id: invitation.organisation_id,
                account_id: account.id,
                role: invitation.role,
                created_at: iso(now)
              })
            }
            yield* record({
              organisationId: invitation.organisation_id,
              actor: userActor(account, client.address),
              action: "invitation.accepted",
              target: { kind: "invitation", id: invitation.id },
              summary: { email: invitation.email, role: invitation.role }
            })
            return yield* begin(account, client, "invitation")
          })
        )
      }),

      signIn: operation("People.signIn")(function* (input, client) {
        const email = normaliseEmail(input.email)
        const account = yield* repo.accountByEmail(email)
        return yield* tx.run(begin(yield* checkPassword(account, input.password, client, email), client, "password"))
      }),

      requestSignInLink: operation("People.requestSignInLink")(requestLink("sign_in")),

      signInWithLink: operation("People.signInWithLink")(function* (token, client) {
        return yield* tx.run(Effect.flatMap(useLink(token, "sign_in"), (account) => begin(account, client, "link")))
      }),

      requestPasswordReset: operation("People.requestPasswordReset")(requestLink("password_reset")),

      resetPassword: operation("People.resetPassword")(function* (token, password, client) {
        // The link is used up first, in a unit of its own: only a good link costs a password hash,
        // and one that fails after this asks for a new link.
        const account = yield* tx.run(useLink(token, "password_reset"))
        const passwordHash = yield* hasher.hash(password)
        return yield* tx.run(
          Effect.gen(function* () {
            yield* repo.setPassword(account.id, passwordHash)
            const ended = yield* repo.revokeSessions(account.id, iso(yield* Clock.currentTimeMillis))
            yield* recordForAccount(account.id, {
              actor: userActor(account, client.address),
              action: "password.reset",
              target: { kind: "user", id: account.id },
              summary: { sessions_ended: ended }
            })
            return yield* begin(account, client, "password_reset")
          })
        )
      }),

      authenticate: operation("People.authenticate")(function* (token, address) {
        if (token === undefined || !Tokens.isWellFormed(token)) return yield* sessionRequired()
        const found = yield* repo.sessionByTokenHash(yield* Tokens.hashOf(token))
        if (Option.isNone(found)) return yield* sessionRequired()
        const now = yield* Clock.currentTimeMillis
        let { session } = found.value
        if (sessionState(sessionTimes(session), now) !== "live") return yield* sessionRequired()
        if (now - Date.parse(session.last_used_at) >= TOUCH_EVERY_MS) {
          yield* repo.touchSession(session.id, iso(now))
          session = { ...session, last_used_at: iso(now) }
        }
        return { session, account: found.value.account, csrfToken: yield* Tokens.csrfTokenOf(token), address }
      }),

      sessionInfo: (principal) =>
        Effect.map(repo.membershipsOf(principal.account.id), (memberships) =>
          infoOf(principal.account, memberships, principal.session, principal.csrfToken)
        ),

      signOut: operation("People.signOut")(function* (principal, everywhere) {
        const at = iso(yield* Clock.currentTimeMillis)
        yield* tx.run(
          Effect.gen(function* () {
            if (everywhere) yield* repo.revokeSessions(principal.account.id, at)
            else yield* repo.revokeSession(principal.account.id, principal.session.id, at)
            yield* recordForAccount(principal.account.id, {
              actor: actorOf(principal),
              action: "user.signed_out",
              target: { kind: "session", id: principal.session.id },
              summary: { everywhere }
            })
          })
        )
      }),

      sessions: operation("People.sessions")(function* (principal) {
        const now = yield* Clock.currentTimeMillis
        return (yield* repo.sessionsOf(principal.account.id))
          .filter((session) => sessionState(sessionTimes(session), now) === "live")
          .map(
            (session): SessionView => ({
              id: session.id,
              device: session.device,
              address: session.address,
              created_at: session.created_at,
              last_used_at: session.last_used_at,
              expires_at: sessionExpiry(session),
              current: session.id === principal.session.id
            })
          )
      }),

      revokeSession: operation("People.revokeSession")(function* (principal, id) {
        const at = iso(yield* Clock.currentTimeMillis)
        yield* tx.run(
          Effect.gen(function* () {
            if (!(yield* repo.revokeSession(principal.account.id, id, at))) {
              return yield* new NotFound({ detail: "no such session" })
            }
            yield* recordForAccount(principal.account.id, {
              actor: actorOf(principal),
              action: "session.revoked",
              target: { kind: "session", id },
              summary: {}
            })
          })
        )
      }),

      enter: operation("People.enter")(function* (principal, organisationId) {
        const role = yield* currentRole(organisationId, principal.account.id)
        return { ...principal, organisationId, role }
      }),

      organisation: (member) => access.getOrganisation(member.organisationId),

      replaceSettings: operation("People.replaceSettings")(function* (member, input) {
        yield* require(member, "settings:write")
        return yield* access.replaceSettings(member.organisationId, input, actorOf(member))
      }),

      members: (member, query) =>
        Effect.map(repo.members(member.organisationId, query), (rows) => toPage(rows.map(toMember), query)),

      changeRole: operation("People.changeRole")(function* (member, accountId, role) {
        const organisationId = member.organisationId
        return yield* tx.run(
          Effect.gen(function* () {
            // Counted under the organisation's lock, so two owners demoting each other at once
            // cannot both see two owners.
            yield* tx.lockOrganisation(organisationId)
            const actorRole = yield* currentRole(organisationId, member.account.id)
            const target = yield* memberOf(organisationId, accountId)
            yield* allowed(Roles.changeRole(actorRole, target.role, role, yield* repo.countOwners(organisationId)))
            if (target.role === role) return toMember(target)
            yield* repo.putMembership({
              organisation_id: organisationId,
              account_id: accountId,
              role,
              created_at: target.created_at
            })
            yield* record({
              organisationId,
              actor: actorOf(member),
              action: "member.role_changed",
              target: { kind: "user", id: accountId },
              summary: { email: target.email, from: target.role, to: role }
            })
            return toMember({ ...target, role })
          })
        )
      }),

      removeMember: operation("People.removeMember")(function* (member, accountId) {
        const organisationId = member.organisationId
        yield* tx.run(
          Effect.gen(function* () {
            yield* tx.lockOrganisation(organisationId)
            const actorRole = yield* currentRole(organisationId, member.account.id)
            const target = yield* memberOf(organisationId, accountId)
            const owners = yield* repo.countOwners(organisationId)
            yield* allowed(Roles.mayRemove(actorRole, target.role, accountId === member.account.id, owners))
            yield* repo.removeMembership(organisationId, accountId)
            yield* record({
              organisationId,
              actor: actorOf(member),
              action: "member.removed",
              target: { kind: "user", id: accountId },
              summary: { email: target.email, role: target.role }
            })
            // An assistant acts as its person: one who left the organisation takes theirs along.
            const apps = yield* keys.revokeAppsOf(organisationId, accountId, iso(yield* Clock.currentTimeMillis))
            for (const app of apps) {
              if (app.grant_id !== null) yield* oauth.revokeGrant(app.grant_id)
              yield* record({
                organisationId,
                actor: actorOf(member),
                action: "app.revoked",
                target: { kind: "key", id: app.id },
                summary: { client_id: app.client_id, client_name: app.name, scopes: [...app.scopes] }
              })
            }
            return apps.length
          })
        )
      }),

      inviteAs: operation("People.inviteAs")(function* (member, input) {
        yield* require(member, "people:invite")
        if (input.role === "owner" && member.role !== "owner") return yield* ownerOnly()
        return yield* invite(member.organisationId, input, actorOf(member))
      }),

      invitations: operation("People.invitations")(function* (member, query) {
        yield* require(member, "people:invite")
        const now = yield* Clock.currentTimeMillis
        const rows = yield* repo.invitations(member.organisationId, query)
        return toPage(
          rows.map((row) => toInvitation(row, now)),
          query
        )
      }),

      revokeInvitation: operation("People.revokeInvitation")(function* (member, id) {
        yield* require(member, "people:invite")
        const at = iso(yield* Clock.currentTimeMillis)
        yield* tx.run(
          Effect.gen(function* () {
            const invitation = yield* repo.invitation(member.organisationId, id)
            if (Option.isNone(invitation)) return yield* new NotFound({ detail: "no such invitation" })
            if (invitation.value.role === "owner" && member.role !== "owner") return yield* ownerOnly()
            if (!(yield* repo.revokeInvitation(id, at))) {
              return yield* new NotFound({ detail: "no such pending invitation: it was accepted or revoked" })
            }
            yield* record({
              organisationId: member.organisationId,
              actor: actorOf(member),
              action: "invitation.revoked",
              target: { kind: "invitation", id },
              summary: { email: invitation.value.email, role: invitation.value.role }
            })
          })
        )
      }),

      createKey: operation("People.createKey")(function* (member, input) {
        yield* grantable(member, input.scopes)
        return yield* access.createKey(member.organisationId, input, actorOf(member))
      }),

      keys: (member, query) => access.listKeys(member.organisationId, query),

      connectApp: operation("People.connectApp")(function* (member, input) {
        yield* grantable(member, input.scopes)
        return yield* access.connectApp(member.organisationId, input, actorOf(member))
      }),

      apps: (member, query) => access.listApps(member.organisationId, query),

      revokeKey: operation("People.revokeKey")(function* (member, id) {
        const key = yield* keys.key(id)
        if (Option.isNone(key) || key.value.organisation_id !== member.organisationId) {
          return yield* new NotFound({ detail: "no such key" })
        }
        if (Either.isLeft(Roles.mayManageKey(member.role, key.value.created_by === member.account.id))) {
          return yield* forbidden()
        }
        yield* access.revokeKey(id, actorOf(member))
      }),

      require,

      audit: operation("People.audit")(function* (member, query) {
        yield* require(member, "audit:read")
        return toPage((yield* log.page(member.organisationId, query)).map(toAuditEntry), query)
      }),

      purge: Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const trail = yield* log.purge(iso(now - AUDIT_RETENTION_DAYS * DAY_MS))
        return trail + (yield* repo.purge(iso(now - PEOPLE_PURGE_MS)))
      }).pipe(Effect.withSpan("People.purge"))
    })
  })

export const layer = (options: PeopleOptions) => Layer.effect(People, make(options))
