import * as Layer from "effect/Layer"
import * as Contacts from "../Contacts.js"
import * as Inventory from "../Inventory.js"
import { defineContext } from "../internal/defineContext.js"
import * as Mail from "../Mail.js"
import { layer, Orders } from "../Orders.js"

/** Orders take stock through `Inventory`, create buyers through `Contacts` and mail through the Mailer. */
export const OrdersContext = defineContext(
  Orders,
  layer.pipe(Layer.provide(Inventory.layer), Layer.provide(Contacts.layer), Layer.provide(Mail.layer))
)
