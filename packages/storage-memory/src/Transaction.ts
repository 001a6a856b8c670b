/** Units of work over the in-memory store: serialised, snapshot-restored on failure; a nested unit joins the enclosing one. */
import { Transaction } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { type Store, transaction } from "./internal/Store.js"

export const make = (store: Store): Context.Tag.Service<typeof Transaction.Transaction> =>
  Transaction.Transaction.of({
    run: (self) => transaction(store, self),
    // Every unit of work here already runs alone (the store's FIFO lock), so what a unit reads
    // stays true until it ends: an organisation's lock would add nothing.
    lockOrganisation: () => Effect.void,
    lockKey: () => Effect.void
  })
