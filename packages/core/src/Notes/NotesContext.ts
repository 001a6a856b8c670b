import * as Layer from "effect/Layer"
import * as Calls from "../Calls.js"
import { defineContext } from "../internal/defineContext.js"
import { layer, Notes } from "../Notes.js"

/** A call note logs its call through `Calls`, with its event. */
export const NotesContext = defineContext(Notes, layer.pipe(Layer.provide(Calls.layer)))
