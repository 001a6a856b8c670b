import { Analytics, layer } from "../Analytics.js"
import { defineContext } from "../internal/defineContext.js"

export const AnalyticsContext = defineContext(Analytics, layer)
