import { defineContext } from "../internal/defineContext.js"
import { layer, Mailer } from "../Mail.js"

export const MailContext = defineContext(Mailer, layer)
