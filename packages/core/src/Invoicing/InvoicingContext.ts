import { Invoicing, layer } from "../Invoicing.js"
import { defineContext } from "../internal/defineContext.js"

export const InvoicingContext = defineContext(Invoicing, layer)
