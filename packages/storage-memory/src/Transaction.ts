/** Units of work over the in-memory store: serialised, snapshot-restored on failure; a nested unit joins the enclosing one. */
import { Transaction } from "@crm/core"
import { type Store, transaction } from "./internal/Store.js"

export const make = (store: Store) =>
  Transaction.Transaction.of({
    run: (self) => transaction(store, self)
  })
