/**
 * How a service writes an entry of the audit trail: one shape for every service that changes access
 * or configuration (people, keys, settings, hooks), stamped with the clock the change ran under.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import { brand, type IdSource } from "../Ids.js"
import type { OrganisationId } from "../Organisation.js"
import type { Actor } from "./Actor.js"
import type { AuditLog, AuditRecord } from "./AuditLog.js"
import { AuditEntryId } from "./PeopleIds.js"

export interface Change {
  /** Null for what belongs to no organisation (a failed sign-in for an unknown address). */
  readonly organisationId: OrganisationId | null
  readonly actor: Actor
  readonly action: string
  readonly target: AuditRecord["target"]
  /** Names, scopes, roles, emails, ids: never a secret. */
  readonly summary: AuditRecord["summary"]
}

/** Appends the entry in the caller's unit of work. */
export type Recorder = (change: Change) => Effect.Effect<void, StorageError>

export const recorder =
  (log: AuditLog["Type"], ids: IdSource): Recorder =>
  (change) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      log.append({
        id: brand(AuditEntryId, ids.next()),
        organisation_id: change.organisationId,
        at: new Date(now).toISOString(),
        actor: { kind: change.actor.kind, id: change.actor.id, label: change.actor.label },
        action: change.action,
        target: change.target,
        address: change.actor.address,
        summary: change.summary
      })
    )
