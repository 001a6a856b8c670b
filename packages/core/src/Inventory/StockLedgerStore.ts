import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { ProductId, VariantId } from "./ProductIds.js"
import type { StockMovement } from "./ProductSchemas.js"

/** The append-only stock ledger of one organisation and the levels it keeps beside. */
export class StockLedgerStore extends Context.Tag("@crm/core/StockLedgerStore")<
  StockLedgerStore,
  {
    /**
     * One atomic step: records the movement and sets its item's level to `movement.level`, so
     * that the level always equals Σ quantity of the item's movements. Holds the product as
     * `ProductRepository.getForUpdate` does. A level that is not the one the movement started
     * from (`level - quantity`, null counting as 0), or an item the product does not have, is a
     * `StorageError`: the caller computed the movement from a level it did not hold.
     */
    readonly append: (organisationId: OrganisationId, movement: StockMovement) => Effect.Effect<void, StorageError>
    /** A product's movements, newest first (the order they were recorded); at most `limit + 1`. */
    readonly list: (
      organisationId: OrganisationId,
      productId: ProductId,
      filter: { readonly variantId?: VariantId },
      page: Page
    ) => Effect.Effect<ReadonlyArray<StockMovement>, StorageError>
  }
>() {}
