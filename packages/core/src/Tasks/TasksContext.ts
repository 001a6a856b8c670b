import { defineContext } from "../internal/defineContext.js"
import { layer, Tasks } from "../Tasks.js"

export const TasksContext = defineContext(Tasks, layer)
