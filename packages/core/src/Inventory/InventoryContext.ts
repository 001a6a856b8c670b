import { Inventory, layer } from "../Inventory.js"
import { defineContext } from "../internal/defineContext.js"

export const InventoryContext = defineContext(Inventory, layer)
