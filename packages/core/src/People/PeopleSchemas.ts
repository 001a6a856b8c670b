/**
 * The wire shapes of people, sessions, invitations and the audit trail: one schema each, read by
 * the HTTP validation, the OpenAPI document and the settings screen's client alike.
 */
import { z } from "zod"
import { Scope } from "../Access/AccessSchemas.js"
import { OrganisationId } from "../Organisation.js"
import { EmailInput, PageQuery, pageEnvelope, Timestamp } from "../Wire.js"
import { AccountId, AuditEntryId, InvitationId, SessionId } from "./PeopleIds.js"
import { Role } from "./Roles.js"

export * from "./PeopleIds.js"

/** Long enough to resist guessing; bounded so that hashing one costs what was measured. */
export const MIN_PASSWORD = 10
export const MAX_PASSWORD = 200

export const Password = z
  .string()
  .min(MIN_PASSWORD, `at least ${MIN_PASSWORD} characters`)
  .max(MAX_PASSWORD, `at most ${MAX_PASSWORD} characters`)
  .describe(`${MIN_PASSWORD} to ${MAX_PASSWORD} characters`)

const DisplayName = z.string().trim().min(1).max(200)

export const Person = z.object({
  id: AccountId,
  email: z.string(),
  name: z.string(),
  created_at: Timestamp
})
export type Person = z.infer<typeof Person>

/** An organisation the person belongs to, with their role there. */
export const MembershipOf = z.object({ id: OrganisationId, name: z.string(), role: Role })
export type MembershipOf = z.infer<typeof MembershipOf>

/** `GET /auth/v1/session`: who is signed in, where, and the token every cookie-authenticated write sends back. */
export const SessionInfo = z.object({
  user: Person,
  organisations: z.array(MembershipOf),
  session: z.object({ id: SessionId, created_at: Timestamp, expires_at: Timestamp }),
  csrf_token: z
    .string()
    .describe("send it as X-CSRF-Token on every write made with the session cookie (POST, PUT, PATCH, DELETE)")
})
export type SessionInfo = z.infer<typeof SessionInfo>

export const SignIn = z.strictObject({ email: EmailInput, password: z.string().min(1).max(MAX_PASSWORD) })
export type SignIn = z.output<typeof SignIn>

/** Asks for a mailed link (sign-in or password reset): answered the same whether or not the address is known. */
export const LinkRequest = z.strictObject({ email: EmailInput })
export type LinkRequest = z.output<typeof LinkRequest>

export const LinkRequested = z.object({
  sent: z.literal(true).describe("always true: whether the address has an account is not told")
})

/** Completes a mailed link: a sign-in link alone, a password reset with the new password. */
export const LinkUse = z.strictObject({ token: z.string().min(1).max(200) })
export const PasswordResetUse = z.strictObject({ token: z.string().min(1).max(200), password: Password })

export const InvitationAccept = z.strictObject({ name: DisplayName, password: Password })
export type InvitationAccept = z.output<typeof InvitationAccept>

export const SignOut = z.strictObject({
  everywhere: z.boolean().default(false).describe("true: every session of the person ends, this one too")
})

export const InvitationStatus = z.enum(["pending", "accepted", "revoked", "expired"])
export type InvitationStatus = z.infer<typeof InvitationStatus>

export const Invitation = z.object({
  id: InvitationId,
  organisation_id: OrganisationId,
  email: z.string(),
  role: Role,
  status: InvitationStatus,
  invited_by: z.string().describe("who invited: a person's name or email, or `operator`"),
  created_at: Timestamp,
  expires_at: Timestamp
})
export type Invitation = z.infer<typeof Invitation>
export const InvitationPage = pageEnvelope(Invitation)

export const CreatedInvitation = Invitation.extend({
  accept_url: z.string().describe("the link that accepts it; shown here and mailed to the address, never again")
})
export type CreatedInvitation = z.infer<typeof CreatedInvitation>

export const InvitationCreate = z.strictObject({ email: EmailInput, role: Role })
export type InvitationCreate = z.output<typeof InvitationCreate>

export const Member = z.object({
  user_id: AccountId,
  email: z.string(),
  name: z.string(),
  role: Role,
  joined_at: Timestamp
})
export type Member = z.infer<typeof Member>
export const MemberPage = pageEnvelope(Member)

export const RoleChange = z.strictObject({ role: Role })

/** A session as its person sees it in the list of their sessions. */
export const SessionView = z.object({
  id: SessionId,
  device: z.string().nullable().describe("the browser's User-Agent at sign-in, cut to 200 characters"),
  address: z.string().nullable().describe("the client address at sign-in"),
  created_at: Timestamp,
  last_used_at: Timestamp,
  expires_at: Timestamp.describe("the earlier of the idle and the absolute expiry"),
  current: z.boolean().describe("the session this request came with")
})
export type SessionView = z.infer<typeof SessionView>
export const SessionList = z.object({ data: z.array(SessionView) })

export const ActorKind = z.enum(["user", "key", "operator", "system", "anonymous"])
export type ActorKind = z.infer<typeof ActorKind>

export const AuditEntry = z.object({
  id: AuditEntryId,
  at: Timestamp,
  actor: z.object({
    kind: ActorKind,
    id: z.string().nullable().describe("the user's or the key's id"),
    label: z.string().nullable().describe("the user's email or the key's name, as they were then")
  }),
  action: z.string().describe("what happened, e.g. key.created, user.signed_in, sign_in.failed"),
  target: z.object({ kind: z.string(), id: z.string().nullable() }).nullable(),
  address: z.string().nullable().describe("the client address"),
  summary: z.record(z.string(), z.unknown()).describe("what changed; never a secret")
})
export type AuditEntry = z.infer<typeof AuditEntry>
export const AuditPage = pageEnvelope(AuditEntry)
export const AuditListQuery = z.object({ ...PageQuery })
export type AuditListQuery = z.output<typeof AuditListQuery>
export const MemberListQuery = z.object({ ...PageQuery })
export type MemberListQuery = z.output<typeof MemberListQuery>
export const InvitationListQuery = z.object({ ...PageQuery })
export type InvitationListQuery = z.output<typeof InvitationListQuery>

/** A key made in the settings screen: the scopes a member may give are capped (`MEMBER_SCOPES`). */
export const ScopeList = z.array(Scope)

/** How long the audit trail keeps an entry. */
export const AUDIT_RETENTION_DAYS = 400
