/**
 * The unit-of-work port. Everything run inside commits together or not at all. A nested call
 * joins the enclosing unit (no savepoint: that would cost every write a round trip), so a caller
 * may catch an inner failure and go on only when the failure wrote nothing: the conflicts the
 * ports report (`EmailAlreadyExists`, ...) are such failures. A unit that fails after writing
 * must fail as a whole (see `Idempotency`, which stores a refusal only after rolling back).
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "./Errors.js"
import type { OrganisationId } from "./Organisation.js"

export class Transaction extends Context.Tag("@crm/core/Transaction")<
  Transaction,
  {
    readonly run: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
    /**
     * Inside a unit of work: waits until no other unit holds the organisation's lock, then holds
     * it until this unit ends, across every process sharing the store. A read made after taking it
     * sees everything committed by the units that held it before, and no unit taking it later
     * commits before this one ends: what a plan limit needs of a count. Writers of the
     * organisation may queue behind it, so take it only where a count must hold.
     */
    readonly lockOrganisation: (organisationId: OrganisationId) => Effect.Effect<void, StorageError>
    /**
     * Inside a unit of work: holds the lock of one natural key of the organisation (`contact.email:
     * ada@example.com`) until the unit ends, across every process: what makes concurrent upserts of
     * one key create one record. Take key locks before anything else in the unit, several in sorted
     * order, so that they come before the organisation's lock that every write takes last.
     */
    readonly lockKey: (organisationId: OrganisationId, key: string) => Effect.Effect<void, StorageError>
  }
>() {}
