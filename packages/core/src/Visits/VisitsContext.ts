import { defineContext } from "../internal/defineContext.js"
import { layer, Visits } from "../Visits.js"

export const VisitsContext = defineContext(Visits, layer)
