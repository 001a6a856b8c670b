import * as Layer from "effect/Layer"
import * as Contacts from "../Contacts.js"
import { defineContext } from "../internal/defineContext.js"
import { Leads, layer } from "../Leads.js"

/** A lead creates its contact through `Contacts`, with its rules and event. */
export const LeadsContext = defineContext(Leads, layer.pipe(Layer.provide(Contacts.layer)))
