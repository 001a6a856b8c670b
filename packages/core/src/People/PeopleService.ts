/**
 * The people of organisations as one service: invitations, signing in (password, mailed link),
 * password resets, sessions, and what a signed-in person does in an organisation's settings, each
 * checked against their role there (`Roles`) and recorded in the audit trail in the same unit of
 * work as the change.
 *
 * Tokens (session, invitation, link) are 32 random bytes in base64url, handed out once and stored
 * only as their SHA-256. A session's CSRF token is derived from its token (`csrfTokenOf`), so the
 * server keeps nothing more and a cross-site page, which cannot read the cookie, cannot make it.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type {
  AppConnect,
  AppListQuery,
  AppSummary,
  CreatedKey,
  KeyListQuery,
  KeySummary
} from "../Access/AccessSchemas.js"
import type { KeyId } from "../Access/KeyIds.js"
import type { Access } from "../Access.js"
import type {
  AlreadyMember,
  Forbidden,
  InUse,
  InvalidCredentials,
  InvalidLink,
  LastOwner,
  NotFound,
  OwnerOnly,
  RateLimited,
  ScopeNotAllowed,
  SessionRequired,
  StorageError,
  ValidationFailed
} from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { PageResult } from "../Wire.js"
import type { Actor } from "./Actor.js"
import type { AccountId, InvitationId, SessionId } from "./PeopleIds.js"
import type { AccountRecord, SessionRecord } from "./PeopleRepository.js"
import type {
  AuditEntry,
  AuditListQuery,
  CreatedInvitation,
  Invitation,
  InvitationAccept,
  InvitationCreate,
  InvitationListQuery,
  Member,
  MemberListQuery,
  SessionInfo,
  SessionView,
  SignIn
} from "./PeopleSchemas.js"
import type { Role } from "./Roles.js"

/** The client a sign-in comes from: its address (throttled, audited) and User-Agent (shown in the session list). */
export interface Client {
  readonly address: string
  readonly device: string | null
}

/** A session just begun: its token goes into the cookie, once; the rest is what `GET /auth/v1/session` says. */
export interface SignedIn {
  readonly token: string
  readonly info: SessionInfo
}

/** A request's signed-in person. */
export interface SessionPrincipal {
  readonly session: SessionRecord
  readonly account: AccountRecord
  /** What the request must send as `X-CSRF-Token` with a write. */
  readonly csrfToken: string
  readonly address: string
}

/** A signed-in person inside one organisation they belong to, with their role there. */
export interface MemberPrincipal extends SessionPrincipal {
  readonly organisationId: OrganisationId
  readonly role: Role
}

/** The actor a signed-in person is in the audit trail. */
export const actorOf = (principal: SessionPrincipal): Actor => ({
  kind: "user",
  id: principal.account.id,
  label: principal.account.email,
  address: principal.address
})

/** The organisation and its settings document as the `Access` service, which owns them, gives and takes them. */
type AccessService = Context.Tag.Service<typeof Access>
type Organisation = Effect.Effect.Success<ReturnType<AccessService["getOrganisation"]>>
type SettingsInput = Parameters<AccessService["replaceSettings"]>[1]

type Refused = Forbidden | OwnerOnly | LastOwner | NotFound | StorageError

export interface PeopleOptions {
  /** Where the CRM is served: the links mailed and returned are made under it (`<url>/settings#...`). */
  readonly publicUrl: string
}

export class People extends Context.Tag("@crm/core/People")<
  People,
  {
    /**
     * Invites an address into an organisation with a role (the operator: any role; a person: by
     * `Roles`, an owner only by an owner). Mails the accept link and returns it. 409 `already_member`
     * when the address already belongs to the organisation.
     */
    readonly invite: (
      organisationId: OrganisationId,
      input: InvitationCreate,
      by: Actor
    ) => Effect.Effect<CreatedInvitation, NotFound | AlreadyMember | StorageError>
    /**
     * Accepts an invitation by its token: makes the account (or, for an address that has one, checks
     * the password given against it, throttled as a sign-in is: whoever invited holds the link too),
     * adds the membership, and begins a session. Unknown, used, revoked or expired: `invalid_link`.
     */
    readonly acceptInvitation: (
      token: string,
      input: InvitationAccept,
      client: Client
    ) => Effect.Effect<SignedIn, InvalidLink | InvalidCredentials | RateLimited | StorageError>
    /**
     * Email and password. One answer and a like time for a wrong password, an unknown address and
     * an account with no password; throttled per account and per address (`rate_limited` with the
     * wait) before the password is even checked.
     */
    readonly signIn: (
      input: SignIn,
      client: Client
    ) => Effect.Effect<SignedIn, InvalidCredentials | RateLimited | StorageError>
    /** Mails a one-time sign-in link when the address has an account; the same answer either way. */
    readonly requestSignInLink: (email: string, client: Client) => Effect.Effect<void, RateLimited | StorageError>
    readonly signInWithLink: (token: string, client: Client) => Effect.Effect<SignedIn, InvalidLink | StorageError>
    /** Mails a one-time password reset link when the address has an account; the same answer either way. */
    readonly requestPasswordReset: (email: string, client: Client) => Effect.Effect<void, RateLimited | StorageError>
    /** Sets the password, ends every other session of the person, and begins a new one. */
    readonly resetPassword: (
      token: string,
      password: string,
      client: Client
    ) => Effect.Effect<SignedIn, InvalidLink | StorageError>

    /** The person behind a session cookie's token: absent, unknown, revoked, idle or expired is `session_required`. */
    readonly authenticate: (
      token: string | undefined,
      address: string
    ) => Effect.Effect<SessionPrincipal, SessionRequired | StorageError>
    readonly sessionInfo: (principal: SessionPrincipal) => Effect.Effect<SessionInfo, StorageError>
    /** Ends this session, or with `everywhere` every session of the person. */
    readonly signOut: (principal: SessionPrincipal, everywhere: boolean) => Effect.Effect<void, StorageError>
    readonly sessions: (principal: SessionPrincipal) => Effect.Effect<ReadonlyArray<SessionView>, StorageError>
    readonly revokeSession: (principal: SessionPrincipal, id: SessionId) => Effect.Effect<void, NotFound | StorageError>

    /** The person inside an organisation: not a member is `not_found`, as for an organisation that does not exist. */
    readonly enter: (
      principal: SessionPrincipal,
      organisationId: OrganisationId
    ) => Effect.Effect<MemberPrincipal, NotFound | StorageError>
    readonly organisation: (member: MemberPrincipal) => Effect.Effect<Organisation, NotFound | StorageError>
    readonly replaceSettings: (
      member: MemberPrincipal,
      input: SettingsInput
    ) => Effect.Effect<Organisation, Forbidden | NotFound | InUse | StorageError>

    readonly members: (
      member: MemberPrincipal,
      query: MemberListQuery
    ) => Effect.Effect<PageResult<Member>, StorageError>
    readonly changeRole: (member: MemberPrincipal, accountId: AccountId, role: Role) => Effect.Effect<Member, Refused>
    /**
     * Removes a person from the organisation (themselves: leaving); their keys stay, their sessions
     * do not reach it, and the assistants they connected to it are revoked.
     */
    readonly removeMember: (member: MemberPrincipal, accountId: AccountId) => Effect.Effect<void, Refused>
    readonly inviteAs: (
      member: MemberPrincipal,
      input: InvitationCreate
    ) => Effect.Effect<CreatedInvitation, Forbidden | OwnerOnly | NotFound | AlreadyMember | StorageError>
    readonly invitations: (
      member: MemberPrincipal,
      query: InvitationListQuery
    ) => Effect.Effect<PageResult<Invitation>, Forbidden | StorageError>
    readonly revokeInvitation: (
      member: MemberPrincipal,
      id: InvitationId
    ) => Effect.Effect<void, Forbidden | OwnerOnly | NotFound | StorageError>

    /** Keys: members make keys of at most `read` and `write`, and manage only the keys they made. */
    readonly createKey: (
      member: MemberPrincipal,
      input: Parameters<AccessService["createKey"]>[1]
    ) => Effect.Effect<CreatedKey, ScopeNotAllowed | NotFound | ValidationFailed | StorageError>
    readonly keys: (
      member: MemberPrincipal,
      query: KeyListQuery
    ) => Effect.Effect<PageResult<KeySummary>, NotFound | StorageError>
    /** Revokes a key or a connected app (their keys): anyone's for owners and admins, their own for members. */
    readonly revokeKey: (member: MemberPrincipal, id: KeyId) => Effect.Effect<void, Forbidden | NotFound | StorageError>
    /**
     * Connects an assistant with the scopes the person consented to, capped by their role as a key
     * they make is (`scope_not_allowed` beyond it): see `Access.connectApp`.
     */
    readonly connectApp: (
      member: MemberPrincipal,
      input: AppConnect
    ) => Effect.Effect<AppSummary, ScopeNotAllowed | NotFound | StorageError>
    /** The organisation's connected apps ("Connected apps" in the settings). */
    readonly apps: (
      member: MemberPrincipal,
      query: AppListQuery
    ) => Effect.Effect<PageResult<AppSummary>, NotFound | StorageError>
    /** Refused (`forbidden`) unless the role may do `action`: what hook routes check before acting. */
    readonly require: (member: MemberPrincipal, action: import("./Roles.js").Action) => Effect.Effect<void, Forbidden>

    readonly audit: (
      member: MemberPrincipal,
      query: AuditListQuery
    ) => Effect.Effect<PageResult<AuditEntry>, Forbidden | StorageError>
    /** The daily job: audit entries past `AUDIT_RETENTION_DAYS`, stale failures, links, sessions and invitations. */
    readonly purge: Effect.Effect<number, StorageError>
  }
>() {}
