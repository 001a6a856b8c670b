/**
 * Lines of a quote or invoice may name a product of the organisation, and one of its variants: a
 * reference to anything else is 422 naming the line's field (decisions page), never a link across
 * organisations.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { invalidField, type StorageError, type ValidationFailed } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { ProductId, VariantId } from "./ProductIds.js"
import type { ProductRepository } from "./ProductRepository.js"

export interface ProductLink {
  readonly product_id?: ProductId | null | undefined
  readonly variant_id?: VariantId | null | undefined
}

export const requireProducts = (
  products: ProductRepository["Type"],
  organisationId: OrganisationId,
  items: ReadonlyArray<ProductLink>
): Effect.Effect<void, ValidationFailed | StorageError> =>
  Effect.forEach(
    items,
    (item, i) => {
      if (item.product_id == null) {
        return item.variant_id == null
          ? Effect.void
          : Effect.fail(invalidField(`items.${i}.variant_id`, "a variant goes with its product_id"))
      }
      return Effect.flatMap(products.get(organisationId, item.product_id), (found) =>
        Option.isNone(found)
          ? Effect.fail(
              invalidField(
                `items.${i}.product_id`,
                `no such record in this organisation: ${item.product_id}`,
                "unknown_reference"
              )
            )
          : item.variant_id == null || found.value.variants.some((variant) => variant.id === item.variant_id)
            ? Effect.void
            : Effect.fail(invalidField(`items.${i}.variant_id`, "not a variant of this product", "unknown_reference"))
      )
    },
    { discard: true }
  )
