import { defineContext } from "../internal/defineContext.js"
import { layer, Sites } from "../Sites.js"

export const SitesContext = defineContext(Sites, layer)
