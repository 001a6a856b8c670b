/**
 * The daily jobs of invoicing on every store, by the organisation's calendar: invoices past their due
 * date become overdue, sent quotes past `valid_until` expire.
 */
import { Access, Invoicing, Kernel, Money, Quotes, Settings } from "@crm/core"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { layerOn } from "../support/ports.js"
import { storages } from "../support/storages.js"

/**
 * 11:00 UTC on 10 March is already 01:00 on 11 March in Kiritimati (UTC+14): "today" there is
 * 2026-03-11, so a job that reckons in UTC would leave things due on the 10th alone.
 */
const NOW = Date.parse("2026-03-10T11:00:00.000Z")
const DAY = 86_400_000
const ZONE = "Pacific/Kiritimati"
const WORK = { name: "Work", quantity: 1, unit_price: Money.ofNumber(100), vat_rate: 21 }
const actor = { keyId: null }

type Services = Access.Access | Invoicing.Invoicing | Quotes.Quotes

const organisation = (name: string) =>
  Effect.flatMap(Access.Access, (access) =>
    access.createOrganisation({
      name,
      settings: Settings.SettingsInput.parse({ timezone: ZONE, default_currency: "EUR", payment_terms_days: 14 })
    })
  )

for (const storage of storages) {
  // Built and run on the live clock, as a server runs the kernel; the daily jobs' cases move a
  // test clock of their own.
  layer(
    layerOn<Services>(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports))),
    { excludeTestServices: true }
  )(`invoicing daily jobs [${storage.name}]`, (it) => {
    it.effect("moves issued and partly paid invoices due before today to overdue and leaves the others alone", () =>
      Effect.gen(function* () {
        const invoicing = yield* Invoicing.Invoicing
        yield* TestClock.setTime(NOW)
        const org = yield* organisation("Overdue")
        const other = yield* organisation("Elsewhere")
        const create = (owner: typeof org, due_date: string) =>
          invoicing.create(owner, { items: [WORK], issue_date: "2026-02-20", due_date }, actor)
        const issue = (owner: typeof org, due_date: string) =>
          Effect.flatMap(create(owner, due_date), (invoice) => invoicing.issue(owner, invoice.id, {}))

        const issuedPast = yield* issue(org, "2026-03-10")
        const partialPast = yield* issue(org, "2026-03-01")
        yield* invoicing.pay(org, partialPast.id, { amount: Money.ofNumber(21) })
        const dueToday = yield* issue(org, "2026-03-11")
        const dueLater = yield* issue(org, "2026-04-01")
        const draftPast = yield* create(org, "2026-03-01")
        const paidPast = yield* issue(org, "2026-03-01")
        yield* invoicing.pay(org, paidPast.id, { amount: Money.ofNumber(121) })
        const cancelledDraft = yield* create(org, "2026-03-01")
        yield* invoicing.cancel(org, cancelledDraft.id)
        const reversed = yield* issue(org, "2026-03-01")
        yield* invoicing.storno(org, reversed.id)
        const elsewhere = yield* issue(other, "2026-03-01")

        yield* invoicing.markOverdue(org)

        const status = (owner: typeof org, id: Invoicing.InvoiceId) =>
          Effect.map(invoicing.get(owner, id), (invoice) => invoice.status)
        expect(yield* status(org, issuedPast.id)).toBe("overdue")
        expect(yield* status(org, partialPast.id)).toBe("overdue")
        expect(yield* status(org, dueToday.id)).toBe("issued")
        expect(yield* status(org, dueLater.id)).toBe("issued")
        expect(yield* status(org, draftPast.id)).toBe("draft")
        expect(yield* status(org, paidPast.id)).toBe("paid")
        expect(yield* status(org, cancelledDraft.id)).toBe("cancelled")
        expect(yield* status(org, reversed.id)).toBe("cancelled")
        // Another organisation's invoices wait for that organisation's job.
        expect(yield* status(other, elsewhere.id)).toBe("issued")
        expect((yield* invoicing.get(org, partialPast.id)).paid_amount).toBe("21")

        const listed = yield* invoicing.list(org, { status: "overdue", limit: 50, offset: 0 })
        expect(listed.data.map((invoice) => invoice.id).sort()).toEqual([issuedPast.id, partialPast.id].sort())

        // A payment on an overdue invoice moves it on by the sum of its payments.
        yield* invoicing.pay(org, issuedPast.id, { amount: Money.ofNumber(21) })
        expect(yield* invoicing.get(org, issuedPast.id)).toMatchObject({ status: "partial", paid_amount: "21" })
        yield* invoicing.pay(org, issuedPast.id, { amount: Money.ofNumber(100) })
        expect(yield* invoicing.get(org, issuedPast.id)).toMatchObject({ status: "paid", paid_amount: "121" })
        yield* invoicing.pay(org, partialPast.id, { amount: Money.ofNumber(100) })
        expect(yield* invoicing.get(org, partialPast.id)).toMatchObject({ status: "paid", paid_amount: "121" })

        // The next day, what fell due yesterday follows; paid invoices stay paid.
        yield* TestClock.adjust(DAY)
        yield* invoicing.markOverdue(org)
        expect(yield* status(org, dueToday.id)).toBe("overdue")
        expect(yield* status(org, issuedPast.id)).toBe("paid")
        expect(yield* status(org, dueLater.id)).toBe("issued")

        yield* invoicing.markOverdue(other)
        expect(yield* status(other, elsewhere.id)).toBe("overdue")
      }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect("refuses a payment of zero or less called on the service itself, recording nothing", () =>
      Effect.gen(function* () {
        const invoicing = yield* Invoicing.Invoicing
        const org = yield* organisation("Nothing paid")
        const invoice = yield* Effect.flatMap(invoicing.create(org, { items: [WORK] }, actor), (draft) =>
          invoicing.issue(org, draft.id, {})
        )
        for (const amount of [0, -5]) {
          const refused = yield* Effect.flip(invoicing.pay(org, invoice.id, { amount: Money.ofNumber(amount) }))
          expect(refused.code).toBe("validation_failed")
          expect("detail" in refused && refused.detail).toEqual([
            expect.objectContaining({ path: "amount", code: "too_small" })
          ])
        }
        const after = yield* invoicing.get(org, invoice.id)
        expect([after.status, after.paid_amount]).toEqual(["issued", "0"])
        expect(yield* invoicing.payments(org, invoice.id)).toEqual([])
      })
    )

    it.effect("never makes a storno overdue: it takes no payment", () =>
      Effect.gen(function* () {
        const invoicing = yield* Invoicing.Invoicing
        yield* TestClock.setTime(NOW)
        const org = yield* organisation("Storno")
        const original = yield* Effect.flatMap(
          invoicing.create(org, { items: [WORK], issue_date: "2026-03-01" }, actor),
          (invoice) => invoicing.issue(org, invoice.id, {})
        )
        const storno = yield* invoicing.storno(org, original.id)
        yield* TestClock.adjust(60 * DAY)
        yield* invoicing.markOverdue(org)
        expect((yield* invoicing.get(org, storno.id)).status).not.toBe("overdue")
        expect((yield* invoicing.get(org, original.id)).status).toBe("cancelled")
      }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect(
      "expires sent quotes whose valid_until is before today, not drafts, answered quotes or quotes valid today",
      () =>
        Effect.gen(function* () {
          const quotes = yield* Quotes.Quotes
          yield* TestClock.setTime(NOW)
          const org = yield* organisation("Expiry")
          const other = yield* organisation("Elsewhere")
          const create = (owner: typeof org, valid_until: string | null) =>
            quotes.create(owner, { items: [WORK], valid_until }, actor)
          const sent = (owner: typeof org, valid_until: string | null) =>
            Effect.flatMap(create(owner, valid_until), (quote) => quotes.transition(owner, quote.id, "send"))

          const sentPast = yield* sent(org, "2026-03-10")
          const sentLongAgo = yield* sent(org, "2025-12-31")
          const sentToday = yield* sent(org, "2026-03-11")
          const sentOpenEnded = yield* sent(org, null)
          const draftPast = yield* create(org, "2026-03-01")
          const acceptedPast = yield* sent(org, "2026-03-01")
          yield* quotes.transition(org, acceptedPast.id, "accept")
          const rejectedPast = yield* sent(org, "2026-03-01")
          yield* quotes.transition(org, rejectedPast.id, "reject")
          const cancelledPast = yield* sent(org, "2026-03-01")
          yield* quotes.transition(org, cancelledPast.id, "cancel")
          const elsewhere = yield* sent(other, "2026-03-01")

          yield* quotes.expire(org)

          const status = (owner: typeof org, id: Quotes.QuoteId) =>
            Effect.map(quotes.get(owner, id), (quote) => quote.status)
          expect(yield* status(org, sentPast.id)).toBe("expired")
          expect(yield* status(org, sentLongAgo.id)).toBe("expired")
          expect(yield* status(org, sentToday.id)).toBe("sent")
          expect(yield* status(org, sentOpenEnded.id)).toBe("sent")
          expect(yield* status(org, draftPast.id)).toBe("draft")
          expect(yield* status(org, acceptedPast.id)).toBe("accepted")
          expect(yield* status(org, rejectedPast.id)).toBe("rejected")
          expect(yield* status(org, cancelledPast.id)).toBe("cancelled")
          expect(yield* status(other, elsewhere.id)).toBe("sent")

          // An expired quote is answered no more.
          const refused = yield* Effect.flip(quotes.transition(org, sentPast.id, "accept"))
          expect(refused._tag).toBe("TransitionNotAllowed")
          expect(yield* status(org, sentPast.id)).toBe("expired")

          yield* TestClock.adjust(DAY)
          yield* quotes.expire(org)
          expect(yield* status(org, sentToday.id)).toBe("expired")
          expect(yield* status(org, sentOpenEnded.id)).toBe("sent")
          expect(yield* status(org, draftPast.id)).toBe("draft")
        }).pipe(Effect.provide(TestContext.TestContext))
    )
  })
}
