import { defineContext } from "../internal/defineContext.js"
import { layer, Records } from "../Records.js"

export const RecordsContext = defineContext(Records, layer)
