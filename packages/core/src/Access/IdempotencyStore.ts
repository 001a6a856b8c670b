import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { IdempotencyInProgress, StorageError } from "../Errors.js"
import type { KeyId } from "./KeyIds.js"

export interface IdempotencyRecord {
  /** What identifies the first request (a transport's digest of it): a repeat must match it. */
  readonly fingerprint: string
  /** The first request's answer, as the caller encoded it for a retry; opaque to the kernel and its stores. */
  readonly payload: string
  readonly created_at: string
}

export interface IdempotencyScope {
  readonly keyId: KeyId
  readonly idempotencyKey: string
}

/**
 * Both calls run inside the caller's unit of work. `claim` takes a lock on the key that lives
 * exactly as long as the transaction (so a crash never leaves a key stuck) and fails with
 * `IdempotencyInProgress` when another transaction holds it; `save` stores the answer in the
 * same transaction as the effect it describes.
 *
 * `claim` may read before its lock is taken (PostgreSQL's does both in one statement, to spare a
 * round trip per write), so a request that committed in between can go unseen. `save` therefore
 * never replaces a record made at or after `notBefore`: it answers `false` instead, and the caller
 * rolls its unit back and claims again, which then replays the record.
 */
export class IdempotencyStore extends Context.Tag("@crm/core/IdempotencyStore")<
  IdempotencyStore,
  {
    readonly claim: (
      scope: IdempotencyScope,
      notBefore: string
    ) => Effect.Effect<Option.Option<IdempotencyRecord>, IdempotencyInProgress | StorageError>
    readonly save: (
      scope: IdempotencyScope,
      record: IdempotencyRecord,
      notBefore: string
    ) => Effect.Effect<boolean, StorageError>
    readonly purgeBefore: (at: string) => Effect.Effect<number, StorageError>
  }
>() {}
