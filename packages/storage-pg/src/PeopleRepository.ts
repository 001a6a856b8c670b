/**
 * The people of the store in PostgreSQL (`People.PeopleRepository`): accounts, memberships,
 * invitations, sessions, mailed links and failed sign-ins (migration `0025_people`). Whatever can
 * be raced for (an invitation accepted or revoked, a link used) is one conditional UPDATE: under
 * READ COMMITTED a second UPDATE of the row waits for the first to commit and then finds its
 * condition false, so exactly one caller gets the row back.
 */
import { type Organisation, People } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import {
  json,
  literal,
  nullable,
  qualified,
  type RowOfTable,
  table,
  text,
  timestamp,
  uuid
} from "./internal/columns.js"
import { orStorageError } from "./internal/errors.js"
import { count, iso, type Timestamp } from "./internal/storedValues.js"
import people from "./migrations/0025_people.js"

export const migrations = { "0025_people": people }

const LINK_PURPOSES: ReadonlyArray<People.LinkPurpose> = ["sign_in", "password_reset"]

const accountTable = table("accounts", {
  id: uuid<People.AccountId>(),
  email: text(),
  name: text(),
  password_hash: nullable(text()),
  created_at: timestamp()
})
type AccountRow = RowOfTable<typeof accountTable>

const membershipTable = table("memberships", {
  organisation_id: uuid<Organisation.OrganisationId>(),
  account_id: uuid<People.AccountId>(),
  role: literal(People.Role),
  created_at: timestamp()
})
type MembershipRow = RowOfTable<typeof membershipTable>

/** Who acted, as the audit trail's entries hold it too (`AuditLog.ts`). */
export const actor = json(People.AuditEntry.shape.actor)

const invitationTable = table("invitations", {
  id: uuid<People.InvitationId>(),
  organisation_id: uuid<Organisation.OrganisationId>(),
  email: text(),
  role: literal(People.Role),
  token_hash: text(),
  invited_by: actor,
  created_at: timestamp(),
  accepted_at: nullable(timestamp()),
  revoked_at: nullable(timestamp())
})
type InvitationRow = RowOfTable<typeof invitationTable>

const sessionTable = table("sessions", {
  id: uuid<People.SessionId>(),
  token_hash: text(),
  account_id: uuid<People.AccountId>(),
  device: nullable(text()),
  address: nullable(text()),
  created_at: timestamp(),
  last_used_at: timestamp(),
  revoked_at: nullable(timestamp())
})
type SessionRow = RowOfTable<typeof sessionTable>

const linkTable = table("people_links", {
  token_hash: text(),
  account_id: uuid<People.AccountId>(),
  purpose: literal({ options: LINK_PURPOSES }),
  created_at: timestamp(),
  used_at: nullable(timestamp())
})
type LinkRow = RowOfTable<typeof linkTable>

/** A session with its account's columns beside it, named apart (both have an id and a created_at). */
interface SessionWithAccountRow extends SessionRow {
  readonly account_email: string
  readonly account_name: string
  readonly account_password_hash: string | null
  readonly account_created_at: Timestamp
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof People.PeopleRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const accountColumns = sql.literal(accountTable.selected)
  const membershipColumns = sql.literal(qualified("m", membershipTable.selected))
  const invitationColumns = sql.literal(invitationTable.selected)
  const sessionColumns = sql.literal(sessionTable.selected)
  const linkColumns = sql.literal(linkTable.selected)

  const oneAccount = (rows: ReadonlyArray<AccountRow>) => Option.map(Option.fromNullable(rows[0]), accountTable.read)
  const oneInvitation = (rows: ReadonlyArray<InvitationRow>) =>
    Option.map(Option.fromNullable(rows[0]), invitationTable.read)

  const settleInvitation = (id: People.InvitationId, field: "accepted_at" | "revoked_at", at: string) =>
    sql`UPDATE invitations SET ${sql(field)} = ${at}::timestamptz
      WHERE id = ${id}::uuid AND accepted_at IS NULL AND revoked_at IS NULL RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0)
    )

  return People.PeopleRepository.of({
    insertAccount: (account) =>
      sql`INSERT INTO accounts ${accountTable.insert(sql, account)}
        ON CONFLICT (email) DO NOTHING RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStorageError("PeopleRepository.insertAccount")
      ),

    accountByEmail: (email) =>
      sql<AccountRow>`SELECT ${accountColumns} FROM accounts WHERE email = ${email}`.pipe(
        Effect.map(oneAccount),
        orStorageError("PeopleRepository.accountByEmail")
      ),

    account: (id) =>
      sql<AccountRow>`SELECT ${accountColumns} FROM accounts WHERE id = ${id}::uuid`.pipe(
        Effect.map(oneAccount),
        orStorageError("PeopleRepository.account")
      ),

    setPassword: (id, passwordHash) =>
      sql`UPDATE accounts SET password_hash = ${passwordHash} WHERE id = ${id}::uuid`.pipe(
        Effect.asVoid,
        orStorageError("PeopleRepository.setPassword")
      ),

    setName: (id, name) =>
      sql`UPDATE accounts SET name = ${name} WHERE id = ${id}::uuid`.pipe(
        Effect.asVoid,
        orStorageError("PeopleRepository.setName")
      ),

    // A role change keeps `created_at`: the person joined when they joined.
    putMembership: (membership) =>
      sql`INSERT INTO memberships ${membershipTable.insert(sql, membership)}
        ON CONFLICT (organisation_id, account_id) DO UPDATE SET role = EXCLUDED.role`.pipe(
        Effect.asVoid,
        orStorageError("PeopleRepository.putMembership")
      ),

    membership: (organisationId, accountId) =>
      sql<MembershipRow>`SELECT ${membershipColumns} FROM memberships m
        WHERE m.organisation_id = ${organisationId}::uuid AND m.account_id = ${accountId}::uuid`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), membershipTable.read)),
        orStorageError("PeopleRepository.membership")
      ),

    membershipsOf: (accountId) =>
      sql<MembershipRow & { readonly organisation_name: string }>`SELECT ${membershipColumns},
          o.name AS organisation_name
        FROM memberships m JOIN organisations o ON o.id = m.organisation_id
        WHERE m.account_id = ${accountId}::uuid
        ORDER BY m.created_at, m.organisation_id`.pipe(
        Effect.map((rows) =>
          rows.map((row) => ({ ...membershipTable.read(row), organisation_name: row.organisation_name }))
        ),
        orStorageError("PeopleRepository.membershipsOf")
      ),

    members: (organisationId, page) =>
      sql<MembershipRow & { readonly email: string; readonly name: string }>`SELECT ${membershipColumns},
          a.email, a.name
        FROM memberships m JOIN accounts a ON a.id = m.account_id
        WHERE m.organisation_id = ${organisationId}::uuid
        ORDER BY m.created_at, m.account_id LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
        Effect.map((rows) => rows.map((row) => ({ ...membershipTable.read(row), email: row.email, name: row.name }))),
        orStorageError("PeopleRepository.members")
      ),

    countOwners: (organisationId) =>
      sql<{ readonly n: string }>`SELECT count(*) AS n FROM memberships
        WHERE organisation_id = ${organisationId}::uuid AND role = 'owner'`.pipe(
        Effect.map((rows) => count(rows[0]!.n)),
        orStorageError("PeopleRepository.countOwners")
      ),

    removeMembership: (organisationId, accountId) =>
      sql`DELETE FROM memberships
        WHERE organisation_id = ${organisationId}::uuid AND account_id = ${accountId}::uuid RETURNING account_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStorageError("PeopleRepository.removeMembership")
      ),

    insertInvitation: (invitation) =>
      sql`INSERT INTO invitations ${invitationTable.insert(sql, invitation)}`.pipe(
        Effect.asVoid,
        orStorageError("PeopleRepository.insertInvitation")
      ),

    invitationByTokenHash: (hash) =>
      sql<InvitationRow>`SELECT ${invitationColumns} FROM invitations WHERE token_hash = ${hash}`.pipe(
        Effect.map(oneInvitation),
        orStorageError("PeopleRepository.invitationByTokenHash")
      ),

    invitation: (organisationId, id) =>
      sql<InvitationRow>`SELECT ${invitationColumns} FROM invitations
        WHERE organisation_id = ${organisationId}::uuid AND id = ${id}::uuid`.pipe(
        Effect.map(oneInvitation),
        orStorageError("PeopleRepository.invitation")
      ),

    invitations: (organisationId, page) =>
      sql<InvitationRow>`SELECT ${invitationColumns} FROM invitations
        WHERE organisation_id = ${organisationId}::uuid
        ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
        Effect.map((rows) => rows.map(invitationTable.read)),
        orStorageError("PeopleRepository.invitations")
      ),

    acceptInvitation: (id, at) =>
      settleInvitation(id, "accepted_at", at).pipe(orStorageError("PeopleRepository.acceptInvitation")),

    revokeInvitation: (id, at) =>
      settleInvitation(id, "revoked_at", at).pipe(orStorageError("PeopleRepository.revokeInvitation")),

    insertSession: (session) =>
      sql`INSERT INTO sessions ${sessionTable.insert(sql, session)}`.pipe(
        Effect.asVoid,
        orStorageError("PeopleRepository.insertSession")
      ),

    // One read per request that comes with a cookie: the session and its person together.
    sessionByTokenHash: (hash) =>
      sql<SessionWithAccountRow>`SELECT ${sql.literal(qualified("s", sessionTable.selected))},
          a.email AS account_email, a.name AS account_name, a.password_hash AS account_password_hash,
          a.created_at AS account_created_at
        FROM sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = ${hash}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({
            session: sessionTable.read(row),
            account: {
              id: row.account_id,
              email: row.account_email,
              name: row.account_name,
              password_hash: row.account_password_hash,
              created_at: iso(row.account_created_at)
            }
          }))
        ),
        orStorageError("PeopleRepository.sessionByTokenHash")
      ),

    // Two requests of one session may finish out of order: the later time stays.
    touchSession: (id, at) =>
      sql`UPDATE sessions SET last_used_at = ${at}::timestamptz
        WHERE id = ${id}::uuid AND last_used_at < ${at}::timestamptz`.pipe(
        Effect.asVoid,
        orStorageError("PeopleRepository.touchSession")
      ),

    sessionsOf: (accountId) =>
      sql<SessionRow>`SELECT ${sessionColumns} FROM sessions
        WHERE account_id = ${accountId}::uuid AND revoked_at IS NULL
        ORDER BY created_at DESC, id DESC`.pipe(
        Effect.map((rows) => rows.map(sessionTable.read)),
        orStorageError("PeopleRepository.sessionsOf")
      ),

    revokeSession: (accountId, id, at) =>
      sql`UPDATE sessions SET revoked_at = ${at}::timestamptz
        WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid AND revoked_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStorageError("PeopleRepository.revokeSession")
      ),

    revokeSessions: (accountId, at) =>
      sql`UPDATE sessions SET revoked_at = ${at}::timestamptz
        WHERE account_id = ${accountId}::uuid AND revoked_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        orStorageError("PeopleRepository.revokeSessions")
      ),

    insertLink: (link) =>
      sql`INSERT INTO people_links ${linkTable.insert(sql, link)}`.pipe(
        Effect.asVoid,
        orStorageError("PeopleRepository.insertLink")
      ),

    useLink: (hash, at) =>
      sql<LinkRow>`UPDATE people_links SET used_at = ${at}::timestamptz
        WHERE token_hash = ${hash} AND used_at IS NULL RETURNING ${linkColumns}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), linkTable.read)),
        orStorageError("PeopleRepository.useLink")
      ),

    recordFailure: (subject, at) =>
      sql`INSERT INTO sign_in_failures (subject, at) VALUES (${subject}, ${at}::timestamptz)`.pipe(
        Effect.asVoid,
        orStorageError("PeopleRepository.recordFailure")
      ),

    failuresSince: (subject, since) =>
      sql<{ readonly at: Timestamp }>`SELECT at FROM sign_in_failures
        WHERE subject = ${subject} AND at >= ${since}::timestamptz ORDER BY at`.pipe(
        Effect.map((rows) => rows.map((row) => iso(row.at))),
        orStorageError("PeopleRepository.failuresSince")
      ),

    // Each row by its own latest use: a failure by its time, a link by when it was made, a session
    // by when it was last used, an invitation by when it was made. A cutoff at least the longest
    // life back (a session's 14 days) leaves only what is still good.
    purge: (before) =>
      sql<{ readonly n: string }>`WITH
          failures AS (DELETE FROM sign_in_failures WHERE at < ${before}::timestamptz RETURNING 1),
          links AS (DELETE FROM people_links WHERE created_at < ${before}::timestamptz RETURNING 1),
          sessions AS (DELETE FROM sessions WHERE last_used_at < ${before}::timestamptz RETURNING 1),
          invitations AS (DELETE FROM invitations WHERE created_at < ${before}::timestamptz RETURNING 1)
        SELECT (SELECT count(*) FROM failures) + (SELECT count(*) FROM links)
          + (SELECT count(*) FROM sessions) + (SELECT count(*) FROM invitations) AS n`.pipe(
        Effect.map((rows) => count(rows[0]!.n)),
        orStorageError("PeopleRepository.purge")
      )
  })
})

export const layer = Layer.effect(People.PeopleRepository, make)
