import { Calls, layer } from "../Calls.js"
import { defineContext } from "../internal/defineContext.js"

export const CallsContext = defineContext(Calls, layer)
