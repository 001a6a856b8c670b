import * as Layer from "effect/Layer"
import { BusinessClock, layer } from "../BusinessClock.js"
import * as Invoicing from "../Invoicing.js"
import { defineContext } from "../internal/defineContext.js"
import { QuotesContext } from "../Quotes/QuotesContext.js"

/** Moving a test clock runs the date jobs of `Quotes` and `Invoicing` that fell due. */
export const BusinessClockContext = defineContext(
  BusinessClock,
  layer.pipe(Layer.provide(QuotesContext.layer), Layer.provide(Invoicing.layer))
)
