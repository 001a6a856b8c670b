/** The two ways mail leaves the server: an SMTP server (nodemailer), or, without one, nowhere. */
import { Errors, Mail } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export interface SmtpOptions {
  /** `smtp://user:pass@host:587` (or `smtps://` for TLS from the start). */
  readonly url: Redacted.Redacted<string>
  /** The sender address of every message. */
  readonly from: string
}

/** Bounded waits, so that an SMTP server that stops answering costs an attempt, not a stuck worker. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }

export const smtp = (options: SmtpOptions): Layer.Layer<Mail.MailTransport> =>
  Layer.scoped(
    Mail.MailTransport,
    Effect.map(
      Effect.acquireRelease(
        // Loaded only when SMTP is configured: most of a megabyte of code a server without it never runs.
        Effect.promise(() => import("nodemailer")).pipe(
          Effect.map(({ default: nodemailer }) =>
            nodemailer.createTransport({ url: Redacted.value(options.url), ...TIMEOUTS })
          )
        ),
        (transporter) => Effect.sync(() => transporter.close())
      ),
      (transporter) =>
        Mail.MailTransport.of({
          send: (mail) =>
            Effect.tryPromise({
              try: () =>
                transporter.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.body }),
              catch: (cause) =>
                new Errors.MailNotSent({ message: cause instanceof Error ? cause.message : String(cause), cause })
            }).pipe(Effect.asVoid)
        })
    )
  )

/**
 * Without SMTP (development, tests) a message counts as delivered the moment the worker takes it,
 * so the outbox still shows what would have gone out and to whom.
 */
export const development: Layer.Layer<Mail.MailTransport> = Layer.succeed(
  Mail.MailTransport,
  Mail.MailTransport.of({
    send: (mail) => Effect.logDebug(`mail to ${mail.to} recorded as delivered (no SMTP configured): ${mail.subject}`)
  })
)
