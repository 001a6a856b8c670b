import * as Layer from "effect/Layer"
import * as Inventory from "../Inventory.js"
import { defineContext } from "../internal/defineContext.js"
import { layer, PurchaseOrders } from "../PurchaseOrders.js"

/** Purchase-order receipts bring goods into stock through `Inventory`. */
export const PurchaseOrdersContext = defineContext(PurchaseOrders, layer.pipe(Layer.provide(Inventory.layer)))
