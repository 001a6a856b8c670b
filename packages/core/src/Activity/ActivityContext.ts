import { Activity, layer } from "../Activity.js"
import { defineContext } from "../internal/defineContext.js"

export const ActivityContext = defineContext(Activity, layer)
