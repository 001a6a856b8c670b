import { Events, layer } from "../Events.js"
import { defineContext } from "../internal/defineContext.js"

export const EventsContext = defineContext(Events, layer)
