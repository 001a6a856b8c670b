/**
 * The quote port (`QuoteRepository`): rows round-trip exactly, lists filter and page, sent
 * revisions stay frozen, and `getForUpdate` holds a quote until its unit of work commits.
 */
import { Companies, Contacts, Invoicing, Quotes } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import {
  amount,
  at,
  expectHeldUntilCommit,
  ids,
  newestFirst,
  newId,
  offer,
  page,
  pricedLines,
  type StoragePorts,
  seed
} from "./Fixtures.js"

type Quote = Quotes.Quote

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`QuoteRepository storage contract: ${name}`, () => {
    test(
      "round-trips every field (decimals, date-only validity, lines and VAT summary as JSON), and only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Quotes.QuoteRepository
        const full = offer({
          number: "NAB2026-0042",
          status: "accepted",
          revision: 3,
          currency: "CZK",
          contact_id: newId(Contacts.ContactId),
          company_id: newId(Companies.CompanyId),
          ...pricedLines(),
          valid_until: "2026-12-31",
          vat_reason: "reverse charge",
          note: "valid for\nthirty days",
          invoice_id: newId(Invoicing.InvoiceId),
          created_at: at(1),
          updated_at: at(2)
        })
        const bare = offer({ created_at: at(3), updated_at: at(3) })
        const expected = structuredClone(full)
        yield* repo.insert(a.id, full)
        yield* repo.insert(a.id, bare)
        // What is stored must not alias the caller's objects, in either direction.
        full.items[0]!.name = "changed after insert"
        const got = Option.getOrThrow(yield* repo.get(a.id, full.id))
        expect(got).toEqual(expected)
        got.items[0]!.name = "changed after get"
        expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(expected)
        expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(expected)
        expect(Option.getOrThrow(yield* repo.get(a.id, bare.id))).toEqual(bare)
        expect(yield* repo.list(a.id, {}, page(50))).toEqual([bare, expected])

        // Amounts are exact, whatever their size or decimals; dates stay the calendar day they were.
        const edges = [
          offer({ total: amount(0), subtotal: amount(0), vat_total: amount(0), valid_until: "2026-01-01" }),
          offer({
            total: amount(0.07),
            subtotal: amount(1234.5),
            vat_total: amount(-0.01),
            valid_until: "2027-06-30"
          }),
          offer({ total: amount(99_999_999.99), valid_until: "1999-12-31" }),
          offer({ total: amount(1e15), valid_until: "2100-02-28" })
        ]
        for (const quote of edges) yield* repo.insert(a.id, quote)
        for (const quote of edges) expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(quote)
        expect(edges.map((quote) => [quote.subtotal, quote.vat_total, quote.total])).toEqual([
          ["0", "0", "0"],
          ["1234.5", "-0.01", "0.07"],
          ["100", "21", "99999999.99"],
          ["100", "21", "1000000000000000"]
        ])

        expect(Option.getOrThrow(yield* repo.organisationOf(full.id))).toBe(a.id)
        expect(Option.isNone(yield* repo.organisationOf(newId(Quotes.QuoteId)))).toBe(true)
        expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)
        expect(Option.isNone(yield* repo.getForUpdate(b.id, full.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, newId(Quotes.QuoteId)))).toBe(true)
        expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
      })
    )

    test(
      "update replaces the fields; another organisation can neither change nor see it",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Quotes.QuoteRepository
        const quote = offer({ created_at: at(1), updated_at: at(1) })
        yield* repo.insert(a.id, quote)
        const sent: Quote = {
          ...quote,
          number: "Q2026-0002",
          status: "sent",
          revision: 1,
          currency: "USD",
          contact_id: newId(Contacts.ContactId),
          company_id: newId(Companies.CompanyId),
          ...pricedLines(),
          valid_until: "2026-04-30",
          vat_reason: "export",
          note: "sent by mail",
          invoice_id: newId(Invoicing.InvoiceId),
          updated_at: at(10)
        }
        yield* repo.update(a.id, sent)
        expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(sent)
        // Clearing goes back to nulls.
        const cleared: Quote = {
          ...sent,
          contact_id: null,
          company_id: null,
          valid_until: null,
          vat_reason: null,
          note: null,
          invoice_id: null,
          updated_at: at(11)
        }
        yield* repo.update(a.id, cleared)
        expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(cleared)

        yield* Effect.either(repo.update(b.id, { ...cleared, note: "Hijacked" }))
        expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(cleared)
        expect(Option.isNone(yield* repo.get(b.id, quote.id))).toBe(true)
        // An unknown quote is left alone, as an UPDATE that matches nothing would.
        yield* repo.update(a.id, offer())
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([quote.id])
      })
    )

    test(
      "list filters: status, contact_id, company_id, each alone and combined",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Quotes.QuoteRepository
        const [ann, bob, acme] = [newId(Contacts.ContactId), newId(Contacts.ContactId), newId(Companies.CompanyId)]
        const q1 = offer({ contact_id: ann, company_id: acme, created_at: at(1) })
        const q2 = offer({ status: "sent", contact_id: bob, created_at: at(2) })
        const q3 = offer({ status: "sent", contact_id: ann, created_at: at(3) })
        const q4 = offer({ status: "accepted", company_id: acme, created_at: at(4) })
        for (const quote of [q1, q2, q3, q4]) yield* repo.insert(a.id, quote)
        yield* repo.insert(b.id, offer({ status: "sent", contact_id: ann, company_id: acme, created_at: at(5) }))

        const list = (filter: Quotes.QuoteFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* list({})).toEqual(ids([q4, q3, q2, q1]))
        expect(yield* list({ status: "sent" })).toEqual(ids([q3, q2]))
        expect(yield* list({ status: "draft" })).toEqual([q1.id])
        expect(yield* list({ status: "expired" })).toEqual([])
        expect(yield* list({ contactId: ann })).toEqual(ids([q3, q1]))
        expect(yield* list({ contactId: newId(Contacts.ContactId) })).toEqual([])
        expect(yield* list({ companyId: acme })).toEqual(ids([q4, q1]))
        expect(yield* list({ status: "sent", contactId: ann })).toEqual([q3.id])
        expect(yield* list({ contactId: ann, companyId: acme })).toEqual([q1.id])
        expect(yield* list({ status: "accepted", contactId: ann, companyId: acme })).toEqual([])
      })
    )

    test(
      "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Quotes.QuoteRepository
        const quotes = [5, 5, 5, 1, 9, 5].map((t, i) => offer({ number: `Q${i}`, created_at: at(t) }))
        for (const quote of quotes) yield* repo.insert(a.id, quote)
        const expected = ids(newestFirst(quotes))
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
        expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
        expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
        expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
        expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
        expect(ids(yield* repo.list(a.id, { status: "draft" }, page(3, 1)))).toEqual(expected.slice(1, 5))
      })
    )

    test(
      "revisions are the quote as each send froze it, oldest first, per quote and organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Quotes.QuoteRepository
        const quote = offer({ ...pricedLines(), valid_until: "2026-05-01" })
        const neighbour = offer()
        yield* repo.insert(a.id, quote)
        yield* repo.insert(a.id, neighbour)
        const first = {
          quote_id: quote.id,
          revision: 1,
          sent_at: at(10),
          quote: { ...quote, status: "sent" as const, revision: 1 }
        }
        const second = {
          quote_id: quote.id,
          revision: 2,
          sent_at: at(20),
          quote: { ...quote, status: "sent" as const, revision: 2, note: "second offer", valid_until: null }
        }
        yield* repo.addRevision(a.id, first)
        yield* repo.addRevision(a.id, second)
        // Later edits of the quote leave the frozen copies alone.
        yield* repo.update(a.id, { ...quote, note: "edited after sending", updated_at: at(30) })
        expect(yield* repo.revisions(a.id, quote.id)).toEqual([first, second])

        expect(yield* repo.revisions(a.id, neighbour.id)).toEqual([])
        expect(yield* repo.revisions(b.id, quote.id)).toEqual([])
        expect(yield* repo.revisions(a.id, newId(Quotes.QuoteId))).toEqual([])
      })
    )

    test(
      "sentExpiringBefore: sent quotes valid until a day before today, and only those of the organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Quotes.QuoteRepository
        const today = "2026-03-10"
        const expiring = [
          offer({ status: "sent", valid_until: "2026-03-09" }),
          offer({ status: "sent", valid_until: "2025-12-31" })
        ]
        const kept = [
          offer({ status: "sent", valid_until: today }),
          offer({ status: "sent", valid_until: "2026-03-11" }),
          offer({ status: "sent", valid_until: null }),
          ...(["draft", "accepted", "rejected", "expired", "cancelled"] as const).map((status) =>
            offer({ status, valid_until: "2026-01-01" })
          )
        ]
        for (const quote of [...expiring, ...kept]) yield* repo.insert(a.id, quote)
        yield* repo.insert(b.id, offer({ status: "sent", valid_until: "2026-01-01" }))

        const due = yield* repo.sentExpiringBefore(a.id, today)
        expect([...due].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(
          [...expiring].sort((x, y) => (x.id < y.id ? -1 : 1))
        )
        expect(yield* repo.sentExpiringBefore(a.id, "2025-12-31")).toEqual([])
      })
    )

    concurrent(
      "getForUpdate in a unit of work holds the quote until the unit commits",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Quotes.QuoteRepository
        const quote = offer({ note: "Contended" })
        yield* repo.insert(a.id, quote)
        const sent = { ...quote, status: "sent" as const, revision: 1, updated_at: at(1) }
        yield* expectHeldUntilCommit(repo.getForUpdate(a.id, quote.id), repo.update(a.id, sent), quote, sent)
        expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(sent)
      })
    )
  })
}
