import { Health, layer } from "../Health.js"
import { defineContext } from "../internal/defineContext.js"

export const HealthContext = defineContext(Health, layer)
