import * as Layer from "effect/Layer"
import * as Inventory from "../Inventory.js"
import { defineContext } from "../internal/defineContext.js"
import { layer, Returns } from "../Returns.js"

/** Received returns bring goods back into stock through `Inventory`. */
export const ReturnsContext = defineContext(Returns, layer.pipe(Layer.provide(Inventory.layer)))
