import { z } from "zod"
import { UserId } from "../Organisation/UserIds.js"
import { OrganisationId } from "../Organisation.js"
import { AccountId } from "../People/PeopleIds.js"
import { PageQuery, pageEnvelope, Timestamp, TimestampInput } from "../Wire.js"
import { CidrString } from "./IpAllowList.js"
import { KeyId } from "./KeyIds.js"

export * from "./KeyIds.js"

export const SCOPES = ["read", "write", "quotes:write", "invoices:write", "forms:submit", "analytics:write"] as const
export const Scope = z.enum(SCOPES)
export type Scope = z.infer<typeof Scope>

export const KeyCreate = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  scopes: z.array(Scope).min(1),
  expires_at: TimestampInput.nullable().optional(),
  allowed_ips: z.array(CidrString).default([]),
  owner_id: UserId.nullable()
    .optional()
    .describe("the person (one of the organisation's settings users) the key acts for")
})

/** What the admin API answers at creation: the only time the key itself is shown. */
export const CreatedKey = z.object({
  id: KeyId,
  name: z.string().nullable(),
  key: z.string(),
  scopes: z.array(Scope),
  expires_at: Timestamp.nullable(),
  allowed_ips: z.array(z.string()),
  owner_id: UserId.nullable()
})
export type CreatedKey = z.infer<typeof CreatedKey>

/** A key as the admin API lists it: never the key itself nor its hash, which is all that is stored of it. */
export const KeySummary = z.object({
  id: KeyId,
  name: z.string().nullable(),
  scopes: z.array(Scope),
  expires_at: Timestamp.nullable(),
  allowed_ips: z.array(z.string()),
  owner_id: UserId.nullable(),
  created_by: AccountId.nullable().describe(
    "the person who made it in the settings screen; null for a key made by the operator"
  ),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable().describe(
    "when a request last came with it, to the minute; null for a key never used"
  ),
  revoked_at: Timestamp.nullable().describe("when the key was revoked; null while it is live")
})
export type KeySummary = z.infer<typeof KeySummary>
export const KeyPage = pageEnvelope(KeySummary)
export const KeyListQuery = z.object({ ...PageQuery })
export type KeyListQuery = z.output<typeof KeyListQuery>

/** An assistant (an OAuth client) a person connected to the organisation, as "Connected apps" lists it. */
export const AppSummary = z.object({
  id: KeyId.describe("the connection's id, by which it is revoked"),
  client_id: z.string().describe("the client's id: a URL for a client known by its metadata document"),
  client_name: z.string().nullable().describe("the name the client gave itself; nothing verifies it"),
  scopes: z.array(Scope),
  created_by: AccountId.nullable().describe("the person who connected it"),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable().describe("when the app last called the MCP endpoint, to the minute"),
  revoked_at: Timestamp.nullable()
})
export type AppSummary = z.infer<typeof AppSummary>
export const AppPage = pageEnvelope(AppSummary)
export const AppListQuery = z.object({ ...PageQuery })
export type AppListQuery = z.output<typeof AppListQuery>

/** What a person consented to: the grant the authorization server made, for the client, with these scopes. */
export interface AppConnect {
  readonly grantId: string
  readonly clientId: string
  readonly clientName: string | null
  readonly scopes: ReadonlyArray<Scope>
}

/**
 * An organisation as the admin API lists it. The settings document (pipelines, users, record
 * types, numbering...) runs to kilobytes, so a page carries what tells organisations apart and
 * `GET /organisations/{id}` the document.
 */
export const OrganisationSummary = z.object({
  id: OrganisationId,
  name: z.string(),
  timezone: z.string(),
  default_currency: z.string(),
  created_at: Timestamp
})
export type OrganisationSummary = z.infer<typeof OrganisationSummary>
export const OrganisationPage = pageEnvelope(OrganisationSummary)
export const OrganisationListQuery = z.object({ ...PageQuery })
export type OrganisationListQuery = z.output<typeof OrganisationListQuery>

export const Me = z.object({
  key: z.object({
    id: KeyId,
    name: z.string().nullable(),
    scopes: z.array(Scope),
    expires_at: Timestamp.nullable(),
    test_mode: z
      .boolean()
      .describe("true for a key of a test-mode organisation, whose business clock the admin API can freeze and advance")
  }),
  organisation: z.object({ id: OrganisationId, name: z.string(), timezone: z.string() }),
  rate_limit: z.object({ limit: z.number().int(), remaining: z.number().int() })
})
export type Me = z.infer<typeof Me>
