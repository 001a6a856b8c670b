import * as Layer from "effect/Layer"
import * as Contacts from "../Contacts.js"
import { Forms, layer } from "../Forms.js"
import { defineContext } from "../internal/defineContext.js"

/** A submission creates its contact through `Contacts`, with its rules and event. */
export const FormsContext = defineContext(Forms, layer.pipe(Layer.provide(Contacts.layer)))
