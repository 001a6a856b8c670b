/**
 * The storage port of people: accounts with their password hash, memberships of organisations,
 * invitations, sessions, mailed one-time links and failed sign-ins. Every secret token is stored
 * only as its SHA-256 (`token_hash`), like an API key. Every write joins the caller's unit of work.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { AccountId, InvitationId, SessionId } from "./PeopleIds.js"
import type { Role } from "./Roles.js"

export interface AccountRecord {
  readonly id: AccountId
  /** Normalised (`Wire.normaliseEmail`); unique across the store. */
  readonly email: string
  readonly name: string
  /** The `PasswordHasher`'s encoding; null until a password is set (an account made by a link only). */
  readonly password_hash: string | null
  readonly created_at: string
}

export interface MembershipRecord {
  readonly organisation_id: OrganisationId
  readonly account_id: AccountId
  readonly role: Role
  readonly created_at: string
}

/** Who did something, as the audit trail and an invitation remember them. */
export interface ActorRecord {
  readonly kind: "user" | "key" | "operator" | "system" | "anonymous"
  readonly id: string | null
  readonly label: string | null
}

export interface InvitationRecord {
  readonly id: InvitationId
  readonly organisation_id: OrganisationId
  readonly email: string
  readonly role: Role
  readonly token_hash: string
  readonly invited_by: ActorRecord
  readonly created_at: string
  readonly accepted_at: string | null
  readonly revoked_at: string | null
}

export interface SessionRecord {
  readonly id: SessionId
  readonly token_hash: string
  readonly account_id: AccountId
  readonly device: string | null
  readonly address: string | null
  readonly created_at: string
  readonly last_used_at: string
  readonly revoked_at: string | null
}

export type LinkPurpose = "sign_in" | "password_reset"

export interface LinkRecord {
  readonly token_hash: string
  readonly account_id: AccountId
  readonly purpose: LinkPurpose
  readonly created_at: string
  readonly used_at: string | null
}

export class PeopleRepository extends Context.Tag("@crm/core/PeopleRepository")<
  PeopleRepository,
  {
    /** Fails with nothing written when the email is taken: false. */
    readonly insertAccount: (account: AccountRecord) => Effect.Effect<boolean, StorageError>
    readonly accountByEmail: (email: string) => Effect.Effect<Option.Option<AccountRecord>, StorageError>
    readonly account: (id: AccountId) => Effect.Effect<Option.Option<AccountRecord>, StorageError>
    readonly setPassword: (id: AccountId, passwordHash: string) => Effect.Effect<void, StorageError>
    readonly setName: (id: AccountId, name: string) => Effect.Effect<void, StorageError>

    /** Adds or, for a person already there, changes the role. */
    readonly putMembership: (membership: MembershipRecord) => Effect.Effect<void, StorageError>
    readonly membership: (
      organisationId: OrganisationId,
      accountId: AccountId
    ) => Effect.Effect<Option.Option<MembershipRecord>, StorageError>
    /** Every organisation the person belongs to, with its name: oldest membership first. */
    readonly membershipsOf: (
      accountId: AccountId
    ) => Effect.Effect<ReadonlyArray<MembershipRecord & { readonly organisation_name: string }>, StorageError>
    /** The organisation's people, oldest first, ties by account id; at most `limit + 1`. */
    readonly members: (
      organisationId: OrganisationId,
      page: Page
    ) => Effect.Effect<
      ReadonlyArray<MembershipRecord & { readonly email: string; readonly name: string }>,
      StorageError
    >
    readonly countOwners: (organisationId: OrganisationId) => Effect.Effect<number, StorageError>
    readonly removeMembership: (
      organisationId: OrganisationId,
      accountId: AccountId
    ) => Effect.Effect<boolean, StorageError>

    readonly insertInvitation: (invitation: InvitationRecord) => Effect.Effect<void, StorageError>
    readonly invitationByTokenHash: (hash: string) => Effect.Effect<Option.Option<InvitationRecord>, StorageError>
    readonly invitation: (
      organisationId: OrganisationId,
      id: InvitationId
    ) => Effect.Effect<Option.Option<InvitationRecord>, StorageError>
    /** Newest first, ties by id descending; at most `limit + 1`. */
    readonly invitations: (
      organisationId: OrganisationId,
      page: Page
    ) => Effect.Effect<ReadonlyArray<InvitationRecord>, StorageError>
    /** Compare and set: true only for the one caller that found it neither accepted nor revoked. */
    readonly acceptInvitation: (id: InvitationId, at: string) => Effect.Effect<boolean, StorageError>
    /** Compare and set, as `acceptInvitation`. */
    readonly revokeInvitation: (id: InvitationId, at: string) => Effect.Effect<boolean, StorageError>

    readonly insertSession: (session: SessionRecord) => Effect.Effect<void, StorageError>
    /** The session with its account; revoked ones too (the caller judges with `sessionState`). */
    readonly sessionByTokenHash: (
      hash: string
    ) => Effect.Effect<
      Option.Option<{ readonly session: SessionRecord; readonly account: AccountRecord }>,
      StorageError
    >
    readonly touchSession: (id: SessionId, at: string) => Effect.Effect<void, StorageError>
    /** The person's sessions not revoked, newest first (the caller leaves out the expired). */
    readonly sessionsOf: (accountId: AccountId) => Effect.Effect<ReadonlyArray<SessionRecord>, StorageError>
    /** Revokes one of the person's sessions: false when it is not theirs or already revoked. */
    readonly revokeSession: (accountId: AccountId, id: SessionId, at: string) => Effect.Effect<boolean, StorageError>
    /** Revokes every live session of the person; returns how many. */
    readonly revokeSessions: (accountId: AccountId, at: string) => Effect.Effect<number, StorageError>

    readonly insertLink: (link: LinkRecord) => Effect.Effect<void, StorageError>
    /**
     * Uses a link once: marks it used and returns it, only for the one caller that found it unused
     * (whether it has expired is the caller's to judge from `created_at`).
     */
    readonly useLink: (hash: string, at: string) => Effect.Effect<Option.Option<LinkRecord>, StorageError>

    /** Counts a failed sign-in against a subject (`account:<email>`, `address:<ip>`). */
    readonly recordFailure: (subject: string, at: string) => Effect.Effect<void, StorageError>
    /** The times of the subject's failures since `since`, oldest first. */
    readonly failuresSince: (subject: string, since: string) => Effect.Effect<ReadonlyArray<string>, StorageError>
    /** Forgets failures, links, and sessions and invitations past use, older than `before`; how many rows went. */
    readonly purge: (before: string) => Effect.Effect<number, StorageError>
  }
>() {}
