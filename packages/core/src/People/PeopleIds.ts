import type { z } from "zod"
import { IdInput } from "../Wire.js"

/**
 * The id of a person who signs in (a user account): not the `UserId` of the settings document's
 * `users`, who are the people records are assigned to and need not sign in at all.
 */
export const AccountId = IdInput.brand<"AccountId">()
export type AccountId = z.output<typeof AccountId>

export const InvitationId = IdInput.brand<"InvitationId">()
export type InvitationId = z.output<typeof InvitationId>

export const SessionId = IdInput.brand<"SessionId">()
export type SessionId = z.output<typeof SessionId>

export const AuditEntryId = IdInput.brand<"AuditEntryId">()
export type AuditEntryId = z.output<typeof AuditEntryId>
