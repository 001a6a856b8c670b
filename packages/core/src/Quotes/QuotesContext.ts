import * as Layer from "effect/Layer"
import * as Invoicing from "../Invoicing.js"
import { defineContext } from "../internal/defineContext.js"
import { layer, Quotes } from "../Quotes.js"

/** An accepted quote becomes a draft invoice through `Invoicing`. */
export const QuotesContext = defineContext(Quotes, layer.pipe(Layer.provide(Invoicing.layer)))
