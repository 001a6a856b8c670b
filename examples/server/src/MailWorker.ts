/** The mail outbox worker: every few seconds, sends what is due and records the outcome. */
import { Mail } from "@crm/core"
import { Outage } from "@crm/http"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as MailTransports from "./MailTransports.js"

export interface MailSettings {
  /** The SMTP server (CRM_SMTP_URL, CRM_MAIL_FROM); without it the development transport is used. */
  readonly smtp?: MailTransports.SmtpOptions
  /** How often the outbox is polled (default 5 seconds). */
  readonly every?: Duration.DurationInput
}

/** Messages taken per round; the next round takes the rest. */
const BATCH = 20

export const worker = (settings: MailSettings = {}) =>
  Layer.scopedDiscard(
    Effect.forkScoped(
      Effect.repeat(
        Outage.round(Outage.make(Outage.forWorker("mail delivery")), Mail.deliverDue(BATCH)).pipe(
          Effect.catchAll((error) => Effect.logWarning("mail delivery failed; retrying at the next round", error)),
          // A defect in one round must not end mail delivery for the life of the process.
          Effect.catchAllDefect((defect) =>
            Effect.logError("mail delivery crashed; retrying at the next round", defect)
          )
        ),
        Schedule.spaced(settings.every ?? "5 seconds")
      )
    )
  ).pipe(Layer.provide(settings.smtp === undefined ? MailTransports.development : MailTransports.smtp(settings.smtp)))
