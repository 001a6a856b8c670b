import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type { StorageError } from "../Errors.js"

/**
 * The one secret every cursor of the store is signed with, kept in the store so that every process
 * on it, and the next one after a restart, signs and verifies alike. `get` answers the stored secret;
 * when there is none yet it stores `candidate` (a fresh one from `SignedCursor.generateSecret`) and
 * answers that. Of concurrent first calls, across processes too, one candidate wins and every call
 * answers it. Never run inside a unit of work: a rollback must not take back a secret already used.
 */
export class CursorSecret extends Context.Tag("@crm/core/CursorSecret")<
  CursorSecret,
  {
    readonly get: (candidate: Redacted.Redacted<string>) => Effect.Effect<Redacted.Redacted<string>, StorageError>
  }
>() {}
