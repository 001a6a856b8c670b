/**
 * The audit trail's storage port: one entry per change of access or configuration, written in the
 * unit of work of the change it records (so an entry exists exactly when its change committed).
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { AuditEntryId } from "./PeopleIds.js"
import type { ActorRecord } from "./PeopleRepository.js"

export interface AuditRecord {
  readonly id: AuditEntryId
  /** Null for what belongs to no organisation (a failed sign-in for an unknown address). */
  readonly organisation_id: OrganisationId | null
  readonly at: string
  readonly actor: ActorRecord
  readonly action: string
  readonly target: { readonly kind: string; readonly id: string | null } | null
  readonly address: string | null
  /** What changed, never a secret: names, scopes, roles, emails, ids. */
  readonly summary: Readonly<Record<string, unknown>>
}

export class AuditLog extends Context.Tag("@crm/core/AuditLog")<
  AuditLog,
  {
    /** Joins the caller's unit of work. */
    readonly append: (entry: AuditRecord) => Effect.Effect<void, StorageError>
    /** The organisation's entries, newest first, ties by id descending; at most `limit + 1`. */
    readonly page: (
      organisationId: OrganisationId,
      page: Page
    ) => Effect.Effect<ReadonlyArray<AuditRecord>, StorageError>
    /** Removes the entries older than `before`; returns how many. */
    readonly purge: (before: string) => Effect.Effect<number, StorageError>
  }
>() {}
