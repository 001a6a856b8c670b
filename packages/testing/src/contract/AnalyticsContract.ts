/**
 * The storage contract of the analytics reads (`DealRepository.visits`, `openOrClosedSince`,
 * `InvoiceRepository.unpaid`, `QuoteRepository.acceptedNotInvoiced`, `TaskRepository.overdueCount`):
 * the same answers on every adapter, live rows only, one organisation only.
 */
import { Companies, Contacts, Deals, Invoicing, Quotes, type Settings, Tasks } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { amount, at, bill, newId, offer, opportunity, type StoragePorts, seed, todo } from "./Fixtures.js"

const sorted = (values: ReadonlyArray<string>) => [...values].sort()
const idsOf = (rows: ReadonlyArray<{ readonly id: string }>) => sorted(rows.map((row) => row.id))

// Deals with a value, issued invoices and accepted quotes (each with a number of its own): what the
// analytics reads sum and count.
const deal = (org: Settings.Organisation, overrides: Partial<Deals.Deal> = {}): Deals.Deal =>
  opportunity(org, { value: amount(10), ...overrides })

let numbers = 0
const invoice = (overrides: Partial<Invoicing.Invoice> = {}): Invoicing.Invoice =>
  bill({
    number: `A-${++numbers}`,
    status: "issued",
    items: [],
    vat_summary: [],
    issued_at: at(0),
    ...overrides
  })

const quote = (overrides: Partial<Quotes.Quote> = {}): Quotes.Quote =>
  offer({ number: `Q-${++numbers}`, status: "accepted", revision: 1, items: [], vat_summary: [], ...overrides })

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test } = contractCases(makeLayer, options)

  describe(`analytics storage contract: ${name}`, () => {
    test(
      "DealRepository.visits returns every visit of the organisation, open and closed",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Deals.DealRepository
        const one = deal(a)
        const [open, next] = a.settings.pipelines[0]!.stages
        const first: Deals.StageVisit = {
          deal_id: one.id,
          pipeline_id: one.pipeline_id,
          from_status_id: null,
          status_id: open!.id,
          status_kind: "open",
          entered_at: at(0),
          left_at: null,
          key_id: null
        }
        yield* repo.insert(a.id, one)
        yield* repo.enterStage(a.id, first)
        yield* repo.enterStage(a.id, { ...first, from_status_id: open!.id, status_id: next!.id, entered_at: at(5000) })
        const visits = yield* repo.visits(a.id)
        expect(
          [...visits].sort((x, y) => x.entered_at.localeCompare(y.entered_at)).map((v) => [v.status_id, v.left_at])
        ).toEqual([
          [open!.id, at(5000)],
          [next!.id, null]
        ])
        expect(yield* repo.visits(b.id)).toEqual([])
      })
    )

    test(
      "DealRepository.openOrClosedSince keeps live open deals and those closed at or after the instant",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Deals.DealRepository
        const stages = a.settings.pipelines[0]!.stages
        const won = stages.find((s) => s.kind === "won")!
        const lost = stages.find((s) => s.kind === "lost")!
        const open = deal(a)
        const recent = deal(a, { status_id: won.id, status_kind: "won", closed_at: at(10_000) })
        const edge = deal(a, { status_id: lost.id, status_kind: "lost", closed_at: at(5000) })
        const old = deal(a, { status_id: lost.id, status_kind: "lost", closed_at: at(4999) })
        const archived = deal(a)
        for (const d of [open, recent, edge, old, archived]) yield* repo.insert(a.id, d)
        yield* repo.archive(a.id, archived.id, at(1))
        expect(idsOf(yield* repo.openOrClosedSince(a.id, at(5000)))).toEqual(sorted([open.id, recent.id, edge.id]))
        expect(yield* repo.openOrClosedSince(a.id, at(5000))).toContainEqual(recent)
        expect(idsOf(yield* repo.openOrClosedSince(a.id, null))).toEqual(sorted([open.id, recent.id, edge.id, old.id]))
        expect(yield* repo.openOrClosedSince(b.id, null)).toEqual([])
      })
    )

    test(
      "InvoiceRepository.unpaid: issued, partial and overdue, never proformas or stornos, filtered by party",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Invoicing.InvoiceRepository
        const contact = newId(Contacts.ContactId)
        const company = newId(Companies.CompanyId)
        const issued = invoice({ contact_id: contact })
        const partial = invoice({ status: "partial", paid_amount: amount(21), company_id: company })
        const overdue = invoice({ status: "overdue", contact_id: contact, company_id: company })
        const others = [
          invoice({ status: "draft", number: undefined }),
          invoice({ status: "paid", paid_amount: amount(121) }),
          invoice({ status: "cancelled" }),
          invoice({ kind: "proforma" }),
          invoice({ kind: "storno", total: amount(-121) })
        ]
        for (const i of [issued, partial, overdue, ...others]) yield* repo.insert(a.id, i)
        yield* repo.insert(b.id, invoice())
        expect(idsOf(yield* repo.unpaid(a.id, {}))).toEqual(sorted([issued.id, partial.id, overdue.id]))
        expect(yield* repo.unpaid(a.id, {})).toContainEqual(partial)
        expect(idsOf(yield* repo.unpaid(a.id, { contactId: contact }))).toEqual(sorted([issued.id, overdue.id]))
        expect(idsOf(yield* repo.unpaid(a.id, { companyId: company }))).toEqual(sorted([partial.id, overdue.id]))
        expect(idsOf(yield* repo.unpaid(a.id, { contactId: contact, companyId: company }))).toEqual([overdue.id])
      })
    )

    test(
      "QuoteRepository.acceptedNotInvoiced: accepted quotes without an invoice",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Quotes.QuoteRepository
        const waiting = quote()
        for (const q of [
          waiting,
          quote({ invoice_id: newId(Invoicing.InvoiceId) }),
          quote({ status: "sent" }),
          quote({ status: "draft" })
        ])
          yield* repo.insert(a.id, q)
        yield* repo.insert(b.id, quote())
        expect(yield* repo.acceptedNotInvoiced(a.id)).toEqual([waiting])
      })
    )

    test(
      "TaskRepository.overdueCount: live open tasks due before the instant",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Tasks.TaskRepository
        const archived = todo({ due_at: at(0) })
        for (const t of [
          todo({ due_at: at(0) }),
          todo({ due_at: at(999) }),
          todo({ due_at: at(1000) }), // due exactly now: not yet overdue
          todo({ due_at: at(0), done: true, completed_at: at(1) }),
          todo(), // no due date
          archived
        ])
          yield* repo.insert(a.id, t)
        yield* repo.archive(a.id, archived.id, at(1))
        yield* repo.insert(b.id, todo({ due_at: at(0) }))
        expect(yield* repo.overdueCount(a.id, at(1000))).toBe(2)
        expect(yield* repo.overdueCount(b.id, at(1000))).toBe(1)
      })
    )
  })
}
