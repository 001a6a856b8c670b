/**
 * The outbox worker's round (`Mail.deliverDue`) over the SMTP transport, against a tiny SMTP
 * server, on every store: a message goes out once and is marked sent; a refused one is retried
 * with backoff (on the test clock) until its attempts run out, then stays visible as failed.
 */
import { Ids, Mail, Organisation, Transaction } from "@crm/core"
import { MailTransports } from "@crm/server"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { layerOn } from "../support/ports.js"
import { type SmtpServer, startSmtpServer } from "../support/smtpServer.js"
import { storages } from "../support/storages.js"

const { MailRetry } = Mail
const START = Date.parse("2026-11-23T10:00:00.000Z")

for (const storage of storages) {
  describe(`mail delivery over SMTP [${storage.name}]`, () => {
    let smtp: SmtpServer
    beforeAll(async () => {
      smtp = await startSmtpServer((recipient) => recipient.startsWith("bounce"))
    })
    afterAll(async () => smtp?.close())

    layer(layerOn(storage, (ports) => Mail.layer.pipe(Layer.provideMerge(ports))))((it) => {
      it.effect(
        "sends a due message once and marks it sent; retries a refused one with backoff, then keeps it as failed",
        () => {
          const organisationId = Ids.brand(Organisation.OrganisationId, crypto.randomUUID())
          const transport = MailTransports.smtp({ url: Redacted.make(smtp.url), from: "shop@example.com" })
          return Effect.gen(function* () {
            yield* TestClock.setTime(START)
            const mailer = yield* Mail.Mailer
            const outbox = yield* Mail.MailOutbox
            const tx = yield* Transaction.Transaction
            const byRecipient = (to: string) =>
              Effect.map(
                outbox.list(organisationId, {}, { limit: 10, offset: 0 }),
                (rows) => rows.find((m) => m.to === to)!
              )

            yield* tx.run(
              mailer.send(organisationId, { to: "buyer@example.com", subject: "Shipped", body: "Track: x/1" })
            )
            yield* tx.run(mailer.send(organisationId, { to: "bounce@example.com", subject: "Also shipped", body: "y" }))
            expect((yield* byRecipient("buyer@example.com")).status).toBe("queued")

            expect(yield* Mail.deliverDue(10)).toBe(2)
            expect(smtp.received).toHaveLength(1)
            expect(smtp.received[0]).toMatchObject({ from: "shop@example.com", to: ["buyer@example.com"] })
            expect(smtp.received[0]!.data).toContain("Subject: Shipped")
            expect(smtp.received[0]!.data).toContain("Track: x/1")
            expect(yield* byRecipient("buyer@example.com")).toMatchObject({
              status: "sent",
              attempts: 1,
              last_error: null,
              next_attempt_at: null,
              sent_at: new Date(START).toISOString()
            })
            const bounced = yield* byRecipient("bounce@example.com")
            expect(bounced).toMatchObject({ status: "queued", attempts: 1, sent_at: null })
            expect(bounced.last_error).toContain("550")
            expect(bounced.next_attempt_at).toBe(new Date(START + MailRetry.backoffMs(1)).toISOString())

            // Nothing is due until the backoff has passed; then one attempt per due time.
            expect(yield* Mail.deliverDue(10)).toBe(0)
            for (let attempt = 2; attempt <= MailRetry.MAX_ATTEMPTS; attempt++) {
              yield* TestClock.adjust(MailRetry.backoffMs(attempt - 1) - 1)
              expect(yield* Mail.deliverDue(10)).toBe(0)
              yield* TestClock.adjust(1)
              expect(yield* Mail.deliverDue(10)).toBe(1)
              expect((yield* byRecipient("bounce@example.com")).attempts).toBe(attempt)
            }
            const failed = yield* byRecipient("bounce@example.com")
            expect(failed).toMatchObject({ status: "failed", attempts: MailRetry.MAX_ATTEMPTS, next_attempt_at: null })
            expect(failed.last_error).toContain("550")
            yield* TestClock.adjust("30 days")
            expect(yield* Mail.deliverDue(10)).toBe(0)
            expect(smtp.received).toHaveLength(1)
          }).pipe(Effect.provide(transport))
        }
      )
    })
  })
}
