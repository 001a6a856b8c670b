/**
 * The invoice port (`InvoiceRepository`): rows and payments round-trip exactly (a draft without a
 * number key), lists filter and page, and `getForUpdate` holds an invoice until its unit commits.
 */
import { Companies, Contacts, Invoicing, Money, Quotes } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import {
  amount,
  at,
  bill,
  expectHeldUntilCommit,
  ids,
  line,
  newestFirst,
  newId,
  page,
  pricedLines,
  type StoragePorts,
  seed
} from "./Fixtures.js"

type Invoice = Invoicing.Invoice
type Payment = Invoicing.Payment

const payment = (invoice: Invoice, overrides: Partial<Payment> = {}): Payment => ({
  id: newId(Invoicing.PaymentId),
  invoice_id: invoice.id,
  amount: amount(10),
  currency: invoice.currency,
  paid_on: "2026-03-10",
  method: null,
  reference: null,
  created_at: at(0),
  ...overrides
})

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`InvoiceRepository storage contract: ${name}`, () => {
    test(
      "round-trips every field (decimals, dates, buyer, lines and VAT summary as JSON); a draft has no number key",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const issued = bill({
          number: "2026-000001",
          kind: "advance",
          status: "partial",
          issue_date: "2026-02-28",
          due_date: "2026-03-14",
          fulfilment_date: "2026-02-27",
          currency: "USD",
          exchange_rate: 24.335,
          contact_id: newId(Contacts.ContactId),
          company_id: newId(Companies.CompanyId),
          buyer: {
            name: 'Lee "Ltd"',
            email: "billing@lee.example",
            vat_number: "CZ12345678",
            city: "Brno",
            country: "CZ"
          },
          ...pricedLines(),
          paid_amount: amount(0.07),
          vat_reason: "reverse charge",
          note: "thank you\nfor your business",
          quote_id: newId(Quotes.QuoteId),
          original_invoice_id: newId(Invoicing.InvoiceId),
          storno_invoice_id: newId(Invoicing.InvoiceId),
          issued_at: at(5),
          created_at: at(1),
          updated_at: at(6)
        })
        const draft = bill({ created_at: at(2), updated_at: at(2) })
        const expected = structuredClone(issued)
        yield* repo.insert(a.id, issued)
        yield* repo.insert(a.id, draft)
        // What is stored must not alias the caller's objects, in either direction.
        issued.buyer.name = "changed after insert"
        const got = Option.getOrThrow(yield* repo.get(a.id, issued.id))
        expect(got).toEqual(expected)
        got.buyer.name = "changed after get"
        expect(Option.getOrThrow(yield* repo.get(a.id, issued.id))).toEqual(expected)
        expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, issued.id))).toEqual(expected)

        // toEqual would accept `number: undefined`; the wire must not carry the key at all.
        const gotDraft = Option.getOrThrow(yield* repo.get(a.id, draft.id))
        expect(gotDraft).toEqual(draft)
        expect(Object.hasOwn(gotDraft, "number")).toBe(false)
        expect(Object.hasOwn(Option.getOrThrow(yield* repo.getForUpdate(a.id, draft.id)), "number")).toBe(false)
        const listed = yield* repo.list(a.id, {}, page(50))
        expect(listed).toEqual([draft, expected])
        expect(Object.hasOwn(listed[0]!, "number")).toBe(false)

        // Amounts are exact, whatever their size or decimals; dates stay the calendar day they were.
        const edges = [
          bill({
            total: amount(0),
            paid_amount: amount(0),
            exchange_rate: 0.07,
            issue_date: "2026-01-01",
            due_date: "2026-01-01"
          }),
          bill({
            total: amount(1234.5),
            paid_amount: amount(1234.5),
            exchange_rate: 0.15432,
            fulfilment_date: "2027-06-30"
          }),
          bill({
            total: amount(99_999_999.99),
            paid_amount: amount(0.01),
            issue_date: "1999-12-31",
            due_date: "2000-01-14"
          }),
          bill({ total: amount(1e15), subtotal: amount(-0.07), exchange_rate: 1e9, due_date: "2100-02-28" })
        ]
        for (const invoice of edges) yield* repo.insert(a.id, invoice)
        for (const invoice of edges) expect(Option.getOrThrow(yield* repo.get(a.id, invoice.id))).toEqual(invoice)
        expect(edges.map((invoice) => [invoice.total, invoice.paid_amount])).toEqual([
          ["0", "0"],
          ["1234.5", "1234.5"],
          ["99999999.99", "0.01"],
          ["1000000000000000", "0"]
        ])

        expect(Option.getOrThrow(yield* repo.organisationOf(issued.id))).toBe(a.id)
        expect(Option.isNone(yield* repo.organisationOf(newId(Invoicing.InvoiceId)))).toBe(true)
        expect(Option.isNone(yield* repo.get(b.id, issued.id))).toBe(true)
        expect(Option.isNone(yield* repo.getForUpdate(b.id, issued.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, newId(Invoicing.InvoiceId)))).toBe(true)
        expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
      })
    )

    test(
      "amounts with more digits than a double carries round-trip as the same text, in columns, lines and payments",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const wide = (text: string) => Money.AmountText.parse(text)
        const item = line({
          unit_price: wide("123456789012345678.01"),
          net: wide("123456789012345678.01"),
          vat: wide("25925925692592592.38"),
          gross: wide("149382714704938270.39")
        })
        const invoice = bill({
          status: "partial",
          number: "W-1",
          items: [item],
          subtotal: wide("123456789012345678.01"),
          vat_total: wide("25925925692592592.38"),
          total: wide("149382714704938270.39"),
          vat_summary: [
            {
              vat_rate: 21,
              net: wide("123456789012345678.01"),
              vat: wide("25925925692592592.38"),
              gross: wide("149382714704938270.39")
            }
          ],
          paid_amount: wide("-0.000000000000000000123")
        })
        yield* repo.insert(a.id, invoice)
        const got = Option.getOrThrow(yield* repo.get(a.id, invoice.id))
        expect(got).toEqual(invoice)
        expect(got.total).toBe("149382714704938270.39")
        expect(got.items[0]!.unit_price).toBe("123456789012345678.01")
        expect(got.vat_summary[0]!.gross).toBe("149382714704938270.39")
        expect(got.paid_amount).toBe("-0.000000000000000000123")

        const paid = payment(invoice, { amount: wide("98765432109876543.21") })
        yield* repo.addPayment(a.id, paid)
        expect(yield* repo.payments(a.id, invoice.id)).toEqual([paid])
      })
    )

    test(
      "update gives a draft its number and replaces the fields; another organisation can neither change nor see it",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const draft = bill({ created_at: at(1), updated_at: at(1) })
        yield* repo.insert(a.id, draft)
        const issued: Invoice = {
          ...draft,
          number: "FV2026-0007",
          status: "issued",
          issue_date: "2026-03-02",
          due_date: "2026-03-16",
          fulfilment_date: "2026-03-01",
          currency: "CZK",
          exchange_rate: 25.1,
          contact_id: newId(Contacts.ContactId),
          company_id: newId(Companies.CompanyId),
          buyer: { name: "Ann Lee", email: null, vat_number: null, city: "Praha", country: "CZ" },
          ...pricedLines(),
          paid_amount: amount(100.5),
          vat_reason: "exempt",
          note: "issued",
          quote_id: newId(Quotes.QuoteId),
          issued_at: at(10),
          updated_at: at(10)
        }
        yield* repo.update(a.id, issued)
        expect(Option.getOrThrow(yield* repo.get(a.id, draft.id))).toEqual(issued)
        // Clearing goes back to nulls, and an absent number to no key.
        const { number: _, ...numberless } = issued
        const cleared: Invoice = {
          ...numberless,
          exchange_rate: null,
          contact_id: null,
          company_id: null,
          vat_reason: null,
          note: null,
          quote_id: null,
          issued_at: null,
          updated_at: at(11)
        }
        yield* repo.update(a.id, cleared)
        const got = Option.getOrThrow(yield* repo.get(a.id, draft.id))
        expect(got).toEqual(cleared)
        expect(Object.hasOwn(got, "number")).toBe(false)

        yield* Effect.either(repo.update(b.id, { ...issued, note: "Hijacked" }))
        expect(Option.getOrThrow(yield* repo.get(a.id, draft.id))).toEqual(cleared)
        expect(Option.isNone(yield* repo.get(b.id, draft.id))).toBe(true)
        yield* repo.update(a.id, bill())
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([draft.id])
      })
    )

    test(
      "list filters: status, kind, contact_id, company_id, each alone and combined",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const [ann, bob, acme] = [newId(Contacts.ContactId), newId(Contacts.ContactId), newId(Companies.CompanyId)]
        const i1 = bill({ contact_id: ann, company_id: acme, created_at: at(1) })
        const i2 = bill({ status: "issued", number: "1", contact_id: bob, created_at: at(2) })
        const i3 = bill({ status: "issued", number: "2", kind: "proforma", contact_id: ann, created_at: at(3) })
        const i4 = bill({ status: "paid", number: "3", kind: "storno", company_id: acme, created_at: at(4) })
        for (const invoice of [i1, i2, i3, i4]) yield* repo.insert(a.id, invoice)
        yield* repo.insert(b.id, bill({ status: "issued", contact_id: ann, company_id: acme, created_at: at(5) }))

        const list = (filter: Invoicing.InvoiceFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* list({})).toEqual(ids([i4, i3, i2, i1]))
        expect(yield* list({ status: "issued" })).toEqual(ids([i3, i2]))
        expect(yield* list({ status: "overdue" })).toEqual([])
        expect(yield* list({ kind: "normal" })).toEqual(ids([i2, i1]))
        expect(yield* list({ kind: "storno" })).toEqual([i4.id])
        expect(yield* list({ kind: "corrective" })).toEqual([])
        expect(yield* list({ contactId: ann })).toEqual(ids([i3, i1]))
        expect(yield* list({ companyId: acme })).toEqual(ids([i4, i1]))
        expect(yield* list({ companyId: newId(Companies.CompanyId) })).toEqual([])
        expect(yield* list({ status: "issued", kind: "normal" })).toEqual([i2.id])
        expect(yield* list({ status: "issued", contactId: ann })).toEqual([i3.id])
        expect(yield* list({ contactId: ann, companyId: acme, kind: "normal", status: "draft" })).toEqual([i1.id])
        expect(yield* list({ contactId: ann, companyId: acme, kind: "proforma" })).toEqual([])
      })
    )

    test(
      "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const invoices = [3, 7, 3, 3, 0, 7].map((t, i) => bill({ note: `I${i}`, created_at: at(t) }))
        for (const invoice of invoices) yield* repo.insert(a.id, invoice)
        const expected = ids(newestFirst(invoices))
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
        expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
        expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
        expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
        expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
        expect(ids(yield* repo.list(a.id, { kind: "normal" }, page(3, 1)))).toEqual(expected.slice(1, 5))
      })
    )

    test(
      "payments round-trip, oldest first (same instant: in the order recorded), per invoice and organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const invoice = bill({ status: "partial", number: "1" })
        const neighbour = bill()
        yield* repo.insert(a.id, invoice)
        yield* repo.insert(a.id, neighbour)
        const later = payment(invoice, {
          amount: amount(1234.5),
          paid_on: "2026-03-31",
          method: "bank transfer",
          reference: "VS 2026000001",
          created_at: at(30)
        })
        const first = payment(invoice, { amount: amount(0.07), paid_on: "2026-02-28", created_at: at(10) })
        const sameInstant = [0.01, 99_999_999.99, 1e12].map((paid) =>
          payment(invoice, { amount: amount(paid), paid_on: "1999-12-31", created_at: at(20) })
        )
        for (const paid of [later, first, ...sameInstant]) yield* repo.addPayment(a.id, paid)
        yield* repo.addPayment(a.id, payment(neighbour, { created_at: at(5) }))

        expect(yield* repo.payments(a.id, invoice.id)).toEqual([first, ...sameInstant, later])
        expect(yield* repo.payments(b.id, invoice.id)).toEqual([])
        expect(yield* repo.payments(a.id, newId(Invoicing.InvoiceId))).toEqual([])
        expect(ids(yield* repo.payments(a.id, neighbour.id))).toHaveLength(1)
      })
    )

    test(
      "dueBefore: issued and partly paid invoices due before today, and only those of the organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const today = "2026-03-10"
        const due = [
          bill({ status: "issued", number: "1", due_date: "2026-03-09" }),
          bill({ status: "partial", number: "2", due_date: "2025-12-31", paid_amount: amount(50.5) })
        ]
        const kept = [
          bill({ status: "issued", number: "3", due_date: today }),
          bill({ status: "partial", number: "4", due_date: "2026-03-11" }),
          ...(["draft", "paid", "overdue", "cancelled"] as const).map((status) =>
            bill({ status, due_date: "2026-01-01" })
          )
        ]
        for (const invoice of [...due, ...kept]) yield* repo.insert(a.id, invoice)
        yield* repo.insert(b.id, bill({ status: "issued", due_date: "2026-01-01" }))

        const found = yield* repo.dueBefore(a.id, today)
        expect([...found].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(
          [...due].sort((x, y) => (x.id < y.id ? -1 : 1))
        )
        expect(yield* repo.dueBefore(a.id, "2025-12-31")).toEqual([])
      })
    )

    concurrent(
      "getForUpdate in a unit of work holds the invoice until the unit commits",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const invoice = bill({ note: "Contended" })
        yield* repo.insert(a.id, invoice)
        const issued: Invoice = { ...invoice, number: "2026-000001", status: "issued", updated_at: at(1) }
        yield* expectHeldUntilCommit(repo.getForUpdate(a.id, invoice.id), repo.update(a.id, issued), invoice, issued)
        expect(Option.getOrThrow(yield* repo.get(a.id, invoice.id))).toEqual(issued)
      })
    )
  })
}
