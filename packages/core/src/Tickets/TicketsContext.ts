import * as Layer from "effect/Layer"
import { defineContext } from "../internal/defineContext.js"
import * as Mail from "../Mail.js"
import { layer, Tickets } from "../Tickets.js"

/** A ticket reply mails the requester through the Mailer. */
export const TicketsContext = defineContext(Tickets, layer.pipe(Layer.provide(Mail.layer)))
