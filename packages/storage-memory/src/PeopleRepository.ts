/**
 * The people of the store in memory (`People.PeopleRepository`): accounts, memberships,
 * invitations, sessions, mailed links and failed sign-ins, store-wide (`Store.PeopleState`). Each
 * write is one atomic change of the store, so a compare and set (accepting an invitation, using a
 * link) has exactly one winner; inside a unit of work it rolls back with the unit. What a foreign
 * key or a unique column refuses on PostgreSQL is refused here too, as a `StorageError`.
 */
import { Errors, People } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import {
  copy,
  copyOut,
  instant,
  membershipKey,
  newestFirst,
  type PeopleState,
  read,
  type State,
  type Store,
  write
} from "./internal/Store.js"

type Result<A> = readonly [Either.Either<A, Errors.StorageError>, PeopleState]

const refused = (message: string) => Either.left(new Errors.StorageError({ message }))

/** Oldest first, ties by `tie` ascending: how members and memberships are listed. */
const oldestFirst =
  <A extends { readonly created_at: string }>(tie: (row: A) => string) =>
  (a: A, b: A): number =>
    instant(a.created_at) - instant(b.created_at) || (tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0)

/** The tables kept with a unique index beside them, and the column each index holds. */
const UNIQUE = {
  accounts: { index: "accountIdsByEmail", column: (row: People.AccountRecord) => row.email },
  invitations: { index: "invitationIdsByHash", column: (row: People.InvitationRecord) => row.token_hash },
  sessions: { index: "sessionIdsByHash", column: (row: People.SessionRecord) => row.token_hash }
} as const

type Indexed = keyof typeof UNIQUE
type Row<T extends Indexed> = Parameters<(typeof UNIQUE)[T]["column"]>[0]

const rowsOf = <T extends Indexed>(people: PeopleState, table: T) => people[table] as HashMap.HashMap<string, Row<T>>
const columnOf = <T extends Indexed>(table: T) => UNIQUE[table].column as (row: Row<T>) => string

/** The row of `table` whose unique column holds `value`. */
const findBy = <T extends Indexed>(people: PeopleState, table: T, value: string): Option.Option<Row<T>> =>
  Option.flatMap(HashMap.get(people[UNIQUE[table].index], value), (id) => HashMap.get(rowsOf(people, table), id))

/** Whether `row`'s id or unique column is already in `table`. */
const taken = <T extends Indexed>(people: PeopleState, table: T, row: Row<T>): boolean =>
  HashMap.has(rowsOf(people, table), row.id) || HashMap.has(people[UNIQUE[table].index], columnOf(table)(row))

/** `people` with `row` in `table` and in its index. */
const added = <T extends Indexed>(people: PeopleState, table: T, row: Row<T>): PeopleState => {
  const { index } = UNIQUE[table]
  return {
    ...people,
    [table]: HashMap.set(rowsOf(people, table), row.id, row),
    [index]: HashMap.set(people[index], columnOf(table)(row), row.id)
  }
}

/** The rows `gone` picks out, apart from those it leaves. */
const without = <A>(map: HashMap.HashMap<string, A>, gone: (row: A) => boolean) => {
  const removed = HashMap.filter(map, gone)
  return { kept: HashMap.filter(map, (row) => !gone(row)), removed }
}

export const make = (store: Store): Context.Tag.Service<typeof People.PeopleRepository> => {
  const change = <A>(f: (people: PeopleState, state: State) => Result<A>) =>
    write(store, (state) => {
      const [result, people] = f(state.people, state)
      return [result, people === state.people ? state : { ...state, people }]
    })
  const look = <A>(f: (people: PeopleState, state: State) => A) => read(store, (state) => f(state.people, state))

  const updateAccount = (id: People.AccountId, f: (account: People.AccountRecord) => People.AccountRecord) =>
    change((people): Result<void> => {
      const account = HashMap.get(people.accounts, id)
      if (Option.isNone(account)) return [Either.right(undefined), people]
      return [Either.right(undefined), { ...people, accounts: HashMap.set(people.accounts, id, f(account.value)) }]
    })

  /** Sets the invitation's `field` to `at` only if it is neither accepted nor revoked. */
  const settleInvitation = (id: People.InvitationId, field: "accepted_at" | "revoked_at", at: string) =>
    change((people): Result<boolean> => {
      const invitation = HashMap.get(people.invitations, id)
      if (Option.isNone(invitation) || invitation.value.accepted_at !== null || invitation.value.revoked_at !== null) {
        return [Either.right(false), people]
      }
      const settled = { ...invitation.value, [field]: at }
      return [Either.right(true), { ...people, invitations: HashMap.set(people.invitations, id, settled) }]
    })

  return People.PeopleRepository.of({
    insertAccount: (input) =>
      Effect.flatMap(copy(input), (account) =>
        change((people): Result<boolean> => {
          if (HashMap.has(people.accounts, account.id)) return [refused(`duplicate account id ${account.id}`), people]
          if (HashMap.has(people.accountIdsByEmail, account.email)) return [Either.right(false), people]
          return [Either.right(true), added(people, "accounts", account)]
        })
      ),

    accountByEmail: (email) => look((people) => Option.map(findBy(people, "accounts", email), copyOut)),

    account: (id) => look((people) => Option.map(HashMap.get(people.accounts, id), copyOut)),

    setPassword: (id, passwordHash) => updateAccount(id, (account) => ({ ...account, password_hash: passwordHash })),

    setName: (id, name) => updateAccount(id, (account) => ({ ...account, name })),

    // A role change keeps `created_at`: the person joined when they joined.
    putMembership: (input) =>
      Effect.flatMap(copy(input), (membership) =>
        change((people, state): Result<void> => {
          if (!HashMap.has(state.organisations, membership.organisation_id)) {
            return [refused(`no organisation ${membership.organisation_id} for a membership`), people]
          }
          if (!HashMap.has(people.accounts, membership.account_id)) {
            return [refused(`no account ${membership.account_id} for a membership`), people]
          }
          const key = membershipKey(membership.organisation_id, membership.account_id)
          const existing = HashMap.get(people.memberships, key)
          const kept = Option.isSome(existing) ? { ...existing.value, role: membership.role } : membership
          return [Either.right(undefined), { ...people, memberships: HashMap.set(people.memberships, key, kept) }]
        })
      ),

    membership: (organisationId, accountId) =>
      look((people) => Option.map(HashMap.get(people.memberships, membershipKey(organisationId, accountId)), copyOut)),

    membershipsOf: (accountId) =>
      look((people, state) =>
        [...HashMap.values(people.memberships)]
          .filter((membership) => membership.account_id === accountId)
          .sort(oldestFirst((membership) => membership.organisation_id))
          .flatMap((membership) =>
            Option.match(HashMap.get(state.organisations, membership.organisation_id), {
              onNone: () => [],
              onSome: (row) => [{ ...copyOut(membership), organisation_name: row.organisation.name }]
            })
          )
      ),

    members: (organisationId, page) =>
      look((people) =>
        [...HashMap.values(people.memberships)]
          .filter((membership) => membership.organisation_id === organisationId)
          .sort(oldestFirst((membership) => membership.account_id))
          .slice(page.offset, page.offset + page.limit + 1)
          .flatMap((membership) =>
            Option.match(HashMap.get(people.accounts, membership.account_id), {
              onNone: () => [],
              onSome: (account) => [{ ...copyOut(membership), email: account.email, name: account.name }]
            })
          )
      ),

    countOwners: (organisationId) =>
      look(
        (people) =>
          [...HashMap.values(people.memberships)].filter(
            (membership) => membership.organisation_id === organisationId && membership.role === "owner"
          ).length
      ),

    removeMembership: (organisationId, accountId) =>
      change((people): Result<boolean> => {
        const key = membershipKey(organisationId, accountId)
        if (!HashMap.has(people.memberships, key)) return [Either.right(false), people]
        return [Either.right(true), { ...people, memberships: HashMap.remove(people.memberships, key) }]
      }),

    insertInvitation: (input) =>
      Effect.flatMap(copy(input), (invitation) =>
        change((people, state): Result<void> => {
          if (!HashMap.has(state.organisations, invitation.organisation_id)) {
            return [refused(`no organisation ${invitation.organisation_id} for invitation ${invitation.id}`), people]
          }
          if (taken(people, "invitations", invitation)) {
            return [refused(`duplicate invitation ${invitation.id}`), people]
          }
          return [Either.right(undefined), added(people, "invitations", invitation)]
        })
      ),

    invitationByTokenHash: (hash) => look((people) => Option.map(findBy(people, "invitations", hash), copyOut)),

    invitation: (organisationId, id) =>
      look((people) =>
        Option.map(
          Option.filter(HashMap.get(people.invitations, id), (found) => found.organisation_id === organisationId),
          copyOut
        )
      ),

    invitations: (organisationId, page) =>
      look((people) =>
        [...HashMap.values(people.invitations)]
          .filter((invitation) => invitation.organisation_id === organisationId)
          .sort(newestFirst)
          .slice(page.offset, page.offset + page.limit + 1)
          .map(copyOut)
      ),

    acceptInvitation: (id, at) => settleInvitation(id, "accepted_at", at),

    revokeInvitation: (id, at) => settleInvitation(id, "revoked_at", at),

    insertSession: (input) =>
      Effect.flatMap(copy(input), (session) =>
        change((people): Result<void> => {
          if (!HashMap.has(people.accounts, session.account_id)) {
            return [refused(`no account ${session.account_id} for session ${session.id}`), people]
          }
          if (taken(people, "sessions", session)) return [refused(`duplicate session ${session.id}`), people]
          return [Either.right(undefined), added(people, "sessions", session)]
        })
      ),

    sessionByTokenHash: (hash) =>
      look((people) =>
        Option.gen(function* () {
          const session = yield* findBy(people, "sessions", hash)
          const account = yield* HashMap.get(people.accounts, session.account_id)
          return { session: copyOut(session), account: copyOut(account) }
        })
      ),

    // Two requests of one session may finish out of order: the later time stays.
    touchSession: (id, at) =>
      change((people): Result<void> => {
        const session = HashMap.get(people.sessions, id)
        if (Option.isNone(session) || instant(session.value.last_used_at) >= instant(at)) {
          return [Either.right(undefined), people]
        }
        const touched = { ...session.value, last_used_at: at }
        return [Either.right(undefined), { ...people, sessions: HashMap.set(people.sessions, id, touched) }]
      }),

    sessionsOf: (accountId) =>
      look((people) =>
        [...HashMap.values(people.sessions)]
          .filter((session) => session.account_id === accountId && session.revoked_at === null)
          .sort(newestFirst)
          .map(copyOut)
      ),

    revokeSession: (accountId, id, at) =>
      change((people): Result<boolean> => {
        const session = HashMap.get(people.sessions, id)
        if (Option.isNone(session) || session.value.account_id !== accountId || session.value.revoked_at !== null) {
          return [Either.right(false), people]
        }
        const revoked = { ...session.value, revoked_at: at }
        return [Either.right(true), { ...people, sessions: HashMap.set(people.sessions, id, revoked) }]
      }),

    revokeSessions: (accountId, at) =>
      change((people): Result<number> => {
        let sessions = people.sessions
        let revoked = 0
        for (const session of HashMap.values(people.sessions)) {
          if (session.account_id !== accountId || session.revoked_at !== null) continue
          sessions = HashMap.set(sessions, session.id, { ...session, revoked_at: at })
          revoked++
        }
        return [Either.right(revoked), revoked === 0 ? people : { ...people, sessions }]
      }),

    insertLink: (input) =>
      Effect.flatMap(copy(input), (link) =>
        change((people): Result<void> => {
          if (!HashMap.has(people.accounts, link.account_id)) {
            return [refused(`no account ${link.account_id} for a link`), people]
          }
          if (HashMap.has(people.links, link.token_hash)) return [refused("duplicate link"), people]
          return [Either.right(undefined), { ...people, links: HashMap.set(people.links, link.token_hash, link) }]
        })
      ),

    useLink: (hash, at) =>
      change((people): Result<Option.Option<People.LinkRecord>> => {
        const link = HashMap.get(people.links, hash)
        if (Option.isNone(link) || link.value.used_at !== null) return [Either.right(Option.none()), people]
        const used = { ...link.value, used_at: at }
        return [Either.right(Option.some(copyOut(used))), { ...people, links: HashMap.set(people.links, hash, used) }]
      }),

    recordFailure: (subject, at) =>
      change((people): Result<void> => {
        const times = Option.getOrElse(HashMap.get(people.failures, subject), (): ReadonlyArray<string> => [])
        const sorted = [...times, at].sort((x, y) => instant(x) - instant(y))
        return [Either.right(undefined), { ...people, failures: HashMap.set(people.failures, subject, sorted) }]
      }),

    failuresSince: (subject, since) =>
      look((people) =>
        Option.getOrElse(HashMap.get(people.failures, subject), (): ReadonlyArray<string> => []).filter(
          (at) => instant(at) >= instant(since)
        )
      ),

    // Each row by its own latest use (see the PostgreSQL adapter): a failure by its time, a link by
    // when it was made, a session by when it was last used, an invitation by when it was made.
    purge: (before) =>
      change((people): Result<number> => {
        const cutoff = instant(before)
        const old = (at: string) => instant(at) < cutoff
        let purged = 0
        let failures = people.failures
        for (const [subject, times] of HashMap.entries(people.failures)) {
          const kept = times.filter((at) => !old(at))
          purged += times.length - kept.length
          if (kept.length !== times.length)
            failures = kept.length === 0 ? HashMap.remove(failures, subject) : HashMap.set(failures, subject, kept)
        }
        const links = without(people.links, (link) => old(link.created_at))
        const sessions = without(people.sessions, (session) => old(session.last_used_at))
        const invitations = without(people.invitations, (invitation) => old(invitation.created_at))
        purged += HashMap.size(links.removed) + HashMap.size(sessions.removed) + HashMap.size(invitations.removed)
        if (purged === 0) return [Either.right(0), people]
        let { sessionIdsByHash, invitationIdsByHash } = people
        for (const session of HashMap.values(sessions.removed))
          sessionIdsByHash = HashMap.remove(sessionIdsByHash, session.token_hash)
        for (const invitation of HashMap.values(invitations.removed))
          invitationIdsByHash = HashMap.remove(invitationIdsByHash, invitation.token_hash)
        return [
          Either.right(purged),
          {
            ...people,
            failures,
            links: links.kept,
            sessions: sessions.kept,
            sessionIdsByHash,
            invitations: invitations.kept,
            invitationIdsByHash
          }
        ]
      })
  })
}
