import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { MailNotSent } from "../Errors.js"
import type { OutgoingMail } from "./MailSchemas.js"

/** Hands one message to the outside world (an SMTP server, or a development stand-in). */
export class MailTransport extends Context.Tag("@crm/core/MailTransport")<
  MailTransport,
  {
    readonly send: (mail: OutgoingMail) => Effect.Effect<void, MailNotSent>
  }
>() {}
