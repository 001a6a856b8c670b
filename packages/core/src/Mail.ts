/**
 * Mail: business operations hand messages to the Mailer, which writes them to the outbox in their
 * unit of work (never lost, never sent for a change that rolled back); a worker delivers them
 * through a `MailTransport`, retrying failures with backoff.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { StorageError } from "./Errors.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { nowIso } from "./internal/records.js"
import { MailMessageId } from "./Mail/MailIds.js"
import { MailOutbox } from "./Mail/MailOutbox.js"
import * as MailRetry from "./Mail/MailRetry.js"
import { type MailListQuery, type MailMessage, type OutgoingMail, WITHHELD_BODY } from "./Mail/MailSchemas.js"
import { MailTransport } from "./Mail/MailTransport.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { type PageResult, toPage } from "./Wire.js"

export * from "./Mail/MailOutbox.js"
export * as MailRetry from "./Mail/MailRetry.js"
export * from "./Mail/MailSchemas.js"
export * from "./Mail/MailTransport.js"

export class Mailer extends Context.Tag("@crm/core/Mailer")<
  Mailer,
  {
    /** Queues the message in the caller's unit of work. */
    readonly send: (organisationId: OrganisationId, mail: OutgoingMail) => Effect.Effect<MailMessage, StorageError>
    /** The organisation's outbox, newest first (admin API), a withheld message's body replaced. */
    readonly list: (
      organisation: Organisation,
      query: MailListQuery
    ) => Effect.Effect<PageResult<MailMessage>, StorageError>
  }
>() {}

export const make = Effect.zipWith(MailOutbox, Ids, (outbox, ids) =>
  Mailer.of({
    send: operation("Mailer.send")(function* (organisationId, mail) {
      const now = yield* nowIso
      const message: MailMessage = {
        id: brand(MailMessageId, ids.next()),
        to: mail.to,
        subject: mail.subject,
        body: mail.body,
        withheld: mail.sensitive === true,
        status: "queued",
        attempts: 0,
        last_error: null,
        next_attempt_at: now,
        created_at: now,
        sent_at: null
      }
      yield* outbox.enqueue(organisationId, message)
      return message
    }),
    list: (organisation, query) =>
      outbox.list(organisation.id, query.status === undefined ? {} : { status: query.status }, query).pipe(
        Effect.map((rows) =>
          toPage(
            rows.map((message) => (message.withheld ? { ...message, body: WITHHELD_BODY } : message)),
            query
          )
        )
      )
  })
)

export const layer = Layer.effect(Mailer, make)

/** How long a claimed message is hidden from other workers while one tries to send it. */
const LEASE_MS = 5 * 60_000

/**
 * One round of the outbox worker: claims the messages that are due, hands each to the transport,
 * and records the outcome. Answers how many were claimed.
 */
export const deliverDue = (limit: number): Effect.Effect<number, StorageError, MailOutbox | MailTransport> =>
  Effect.gen(function* () {
    const outbox = yield* MailOutbox
    const transport = yield* MailTransport
    const now = yield* nowIso
    const claimed = yield* outbox.claimDue(now, new Date(Date.parse(now) + LEASE_MS).toISOString(), limit)
    yield* Effect.forEach(
      claimed,
      ({ message, organisationId }) =>
        transport.send(message).pipe(
          Effect.zipRight(nowIso),
          Effect.map((at) => MailRetry.succeeded(message, at)),
          Effect.catchTag("MailNotSent", (error) =>
            Effect.map(nowIso, (at) => MailRetry.failed(message, error.message, at))
          ),
          Effect.tap((outcome) => outbox.record(organisationId, outcome)),
          // The operator's line for each attempt; the recipient and the text stay in the outbox.
          Effect.flatMap((outcome) => {
            const line = {
              organisation_id: organisationId,
              mail_id: outcome.id,
              attempt: outcome.attempts,
              status: outcome.status,
              ...(outcome.status === "sent" || outcome.last_error === null ? {} : { error: outcome.last_error }),
              ...(outcome.next_attempt_at === null ? {} : { next_attempt_at: outcome.next_attempt_at })
            }
            return outcome.status === "sent"
              ? Effect.logInfo("mail sent", line)
              : Effect.logWarning("mail not sent", line)
          })
        ),
      { discard: true }
    )
    return claimed.length
  }).pipe(Effect.withSpan("Mail.deliverDue"))
