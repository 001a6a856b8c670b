import { Ids, Mail } from "@crm/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { MailRetry } = Mail
const AT = "2026-11-23T10:00:00.000Z"

const queued = (attempts: number): Mail.MailMessage => ({
  id: Ids.brand(Mail.MailMessageId, crypto.randomUUID()),
  to: "buyer@example.com",
  subject: "s",
  body: "b",
  withheld: false,
  status: "queued",
  attempts,
  last_error: null,
  next_attempt_at: AT,
  created_at: AT,
  sent_at: null
})

const attempts = fc.integer({ min: 1, max: MailRetry.MAX_ATTEMPTS })

describe("MailRetry", () => {
  it("marks a successful attempt sent, clearing the error and the next attempt", () => {
    fc.assert(
      fc.property(attempts, (n) => {
        const sent = MailRetry.succeeded({ ...queued(n), last_error: "earlier" }, AT)
        expect(sent).toMatchObject({
          status: "sent",
          sent_at: AT,
          last_error: null,
          next_attempt_at: null,
          attempts: n
        })
      })
    )
  })

  it("keeps a failed message queued with a later retry until the attempts run out, then fails it for good", () => {
    fc.assert(
      fc.property(attempts, fc.string({ minLength: 1 }), (n, error) => {
        const outcome = MailRetry.failed(queued(n), error, AT)
        expect(outcome.last_error).toBe(error)
        expect(outcome.attempts).toBe(n)
        if (n >= MailRetry.MAX_ATTEMPTS) {
          expect(outcome).toMatchObject({ status: "failed", next_attempt_at: null })
        } else {
          expect(outcome.status).toBe("queued")
          expect(Date.parse(outcome.next_attempt_at!) - Date.parse(AT)).toBe(MailRetry.backoffMs(n))
        }
      })
    )
  })

  it("waits longer after each failure", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MailRetry.MAX_ATTEMPTS - 2 }), (n) => {
        expect(MailRetry.backoffMs(n + 1)).toBeGreaterThan(MailRetry.backoffMs(n))
      })
    )
  })
})
