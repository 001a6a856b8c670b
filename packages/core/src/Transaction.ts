/**
 * The unit-of-work port. Everything run inside commits together or not at all; a nested
 * call is a savepoint, so a failed inner operation leaves the outer work intact.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "./Errors.js"

export class Transaction extends Context.Tag("@crm/core/Transaction")<
  Transaction,
  {
    readonly run: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
  }
>() {}
