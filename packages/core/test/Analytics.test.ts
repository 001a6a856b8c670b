/**
 * The analyses on one fixed, small data set, every expected figure worked out by hand in the comments.
 * Clock: now = 2026-11-20T10:00:00.000Z, organisation in Europe/Prague (11:00 there), so today = 2026-11-20.
 */
import * as BigDecimal from "effect/BigDecimal"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { UnpaidInvoice } from "../src/Analytics/AnalyticsSchemas.js"
import * as CashFlow from "../src/Analytics/CashFlowForecast.js"
import * as Pipelines from "../src/Analytics/PipelineSummary.js"
import * as Receivables from "../src/Analytics/Receivables.js"
import * as Health from "../src/Analytics/SalesHealth.js"
import * as Stalled from "../src/Analytics/StalledDeals.js"
import { ContactId } from "../src/Contacts/ContactIds.js"
import { DealId } from "../src/Deals/DealIds.js"
import type { Deal, StageVisit } from "../src/Deals/DealSchemas.js"
import { type Pipeline, PipelineId, type Stage, StageId } from "../src/Deals/PipelineSchemas.js"
import { brand } from "../src/Ids.js"
import { type Invoice, InvoiceId } from "../src/Invoicing/InvoiceSchemas.js"
import { dateIn } from "../src/internal/dates.js"
import { type Amount, AmountText, fromDecimal, ofNumber, toDecimal, ZERO } from "../src/Money/Amount.js"
import { type Quote, QuoteId } from "../src/Quotes/QuoteSchemas.js"

const NOW = "2026-11-20T10:00:00.000Z"
const TZ = "Europe/Prague"
const TODAY = dateIn(TZ, Date.parse(NOW))
const DAY = 86_400_000
/** An amount as a request writes it: a JSON number, decoded. */
const a = (n: number): Amount => ofNumber(n)
/** `now − days` as an ISO instant. */
const ago = (days: number) => new Date(Date.parse(NOW) - days * DAY).toISOString()

// Deterministic uuids: the last block names the thing.
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
const stageId = (n: number) => brand(StageId, uuid(n))
const pipelineId = (n: number) => brand(PipelineId, uuid(n))

const stage = (id: number, name: string, kind: Stage["kind"], probability?: number): Stage => ({
  id: stageId(id),
  name,
  kind,
  required_fields: [],
  playbook: [],
  ...(probability === undefined ? {} : { probability })
})

// P1 "Sales": three open stages without probabilities (1/4, 2/4, 3/4 by position), then won and lost.
const S1 = stageId(11)
const S2 = stageId(12)
const S3 = stageId(13)
const WON = stageId(14)
const LOST = stageId(15)
// P2 "Partners": one open stage with an explicit 50 %, and a won stage.
const T1 = stageId(21)
const T2 = stageId(22)
const P1: Pipeline = {
  id: pipelineId(1),
  name: "Sales",
  stages: [
    stage(11, "Qualified", "open"),
    stage(12, "Proposal", "open"),
    stage(13, "Negotiation", "open"),
    stage(14, "Won", "won"),
    stage(15, "Lost", "lost")
  ]
}
const P2: Pipeline = {
  id: pipelineId(2),
  name: "Partners",
  stages: [stage(21, "Intro", "open", 50), stage(22, "Won", "won")]
}
const PIPELINES = [P1, P2]

const deal = (n: number, fields: Partial<Deal> & Pick<Deal, "status_id">): Deal => {
  const pipeline = PIPELINES.find((p) => p.stages.some((s) => s.id === fields.status_id)) as Pipeline
  const kind = pipeline.stages.find((s) => s.id === fields.status_id)?.kind ?? "open"
  return {
    id: brand(DealId, uuid(100 + n)),
    title: `Deal ${n}`,
    value: null,
    currency: "EUR",
    pipeline_id: pipeline.id,
    status_kind: kind,
    contact_id: null,
    company_id: null,
    owner_id: null,
    expected_close_date: null,
    lost_reason: null,
    closed_at: null,
    custom: {},
    created_at: ago(100),
    updated_at: ago(1),
    ...fields
  }
}

const D1 = deal(1, { title: "Alpha", status_id: S1, value: a(1000.1), expected_close_date: "2026-12-15" })
const D2 = deal(2, { title: "Beta", status_id: S1, value: null, expected_close_date: "2026-12-01" })
const D3 = deal(3, {
  title: "Gamma",
  status_id: S2,
  value: a(2000),
  currency: "CZK",
  expected_close_date: "2026-10-31"
})
const D4 = deal(4, { title: "Delta", status_id: S3, value: a(3000) })
const D5 = deal(5, { title: "Epsilon", status_id: WON, value: a(5000), closed_at: ago(10) })
const D6 = deal(6, { title: "Zeta", status_id: LOST, value: a(700.1), closed_at: ago(40) })
// Closed exactly 30 × 24 h ago: still inside "the last 30 days".
const D7 = deal(7, { title: "Eta", status_id: WON, value: a(400), currency: "USD", closed_at: ago(30) })
const D8 = deal(8, { title: "Theta", status_id: T1, value: a(800), expected_close_date: "2027-01-10" })
const D9 = deal(9, { title: "Iota", status_id: LOST, value: a(300.2), closed_at: ago(5) })
const DEALS = [D1, D2, D3, D4, D5, D6, D7, D8, D9]
const OPEN = [D1, D2, D3, D4, D8]

const visit = (dealId: DealId, stageId: StageId, enteredDaysAgo: number, leftDaysAgo: number | null): StageVisit => ({
  deal_id: dealId,
  pipeline_id: PIPELINES.find((p) => p.stages.some((s) => s.id === stageId))?.id as PipelineId,
  from_status_id: null,
  status_id: stageId,
  status_kind: "open",
  entered_at: ago(enteredDaysAgo),
  left_at: leftDaysAgo === null ? null : ago(leftDaysAgo),
  key_id: null
})

// History of earlier (since archived) deals H1..H8: completed visits of known durations.
const H = (n: number) => brand(DealId, uuid(900 + n))
const VISITS: ReadonlyArray<StageVisit> = [
  // S1: 2, 4 and 9 days → median 4.
  visit(H(1), S1, 50, 48),
  visit(H(2), S1, 60, 56),
  visit(H(3), S1, 70, 61),
  // S2: 1, 3, 6 and 10 days → even count: median (3 + 6) / 2 = 4.5.
  visit(H(1), S2, 48, 47),
  visit(H(2), S2, 56, 53),
  visit(H(3), S2, 61, 55),
  visit(H(4), S2, 80, 70),
  // T1: 6 days → median 6. S3 has no completed visit: no baseline.
  visit(H(5), T1, 30, 24),
  // The open deals' current visits.
  visit(D1.id, S1, 6, null),
  visit(D2.id, S1, 3, null),
  visit(D3.id, S2, 10, null),
  visit(D4.id, S3, 2, null),
  visit(D8.id, T1, 7.125, null),
  { ...visit(D5.id, WON, 10, null), status_kind: "won" }
]

const invoice = (n: number, fields: Partial<Invoice>): Invoice => ({
  id: brand(InvoiceId, uuid(200 + n)),
  number: `2026-${String(n).padStart(6, "0")}`,
  kind: "normal",
  status: "issued",
  issue_date: "2026-08-01",
  due_date: "2026-12-01",
  fulfilment_date: "2026-08-01",
  currency: "EUR",
  exchange_rate: null,
  contact_id: null,
  company_id: null,
  buyer: { name: null, email: null, vat_number: null, city: null, country: null },
  items: [],
  subtotal: ZERO,
  vat_total: ZERO,
  total: ZERO,
  vat_summary: [],
  paid_amount: ZERO,
  vat_reason: null,
  note: null,
  quote_id: null,
  original_invoice_id: null,
  storno_invoice_id: null,
  issued_at: ago(100),
  created_at: ago(100),
  updated_at: ago(1),
  ...fields
})

const CONTACT = brand(ContactId, uuid(500))
// Days past due on 2026-11-20: 30, 31, 60, 61, 90 and 91 are the bucket edges.
const I1 = invoice(1, { total: a(1210), due_date: "2026-11-30", contact_id: CONTACT }) // 0 → not yet due
const I2 = invoice(2, { status: "partial", total: a(1000.5), paid_amount: a(400.2), due_date: "2026-10-21" }) // 30
const I3 = invoice(3, { status: "overdue", total: a(500), due_date: "2026-10-20", contact_id: CONTACT }) // 31
const I4 = invoice(4, {
  status: "overdue",
  currency: "CZK",
  total: a(10000),
  paid_amount: a(2500),
  due_date: "2026-09-21"
}) // 60
const I5 = invoice(5, { status: "overdue", currency: "CZK", total: a(3000), due_date: "2026-09-20" }) // 61
const I6 = invoice(6, { status: "overdue", total: a(200), due_date: "2026-08-22" }) // 90
const I7 = invoice(7, { status: "overdue", total: a(100), due_date: "2026-08-21" }) // 91
const I13 = invoice(13, { currency: "CZK", total: a(4000), due_date: "2026-12-10" }) // 0, in December
const I14 = invoice(14, { total: a(50), due_date: "2027-03-01" }) // 0, beyond a 3-month forecast
// Never receivables: a draft, an issued proforma, a cancelled invoice, a storno, a paid one.
const I8 = invoice(8, { status: "draft", number: undefined, total: a(999), due_date: "2026-10-01" }) as Invoice
const I9 = invoice(9, { kind: "proforma", total: a(888), due_date: "2026-10-01" })
const I10 = invoice(10, { status: "cancelled", total: a(777), due_date: "2026-10-01" })
const I11 = invoice(11, { kind: "storno", total: a(-1210), due_date: "2026-10-01" })
const I12 = invoice(12, { status: "paid", total: a(1000), paid_amount: a(1000), due_date: "2026-10-01" })
const INVOICES = [I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13, I14]

const quote = (n: number, fields: Partial<Quote>): Quote => ({
  id: brand(QuoteId, uuid(300 + n)),
  number: `Q2026-${n}`,
  status: "accepted",
  revision: 1,
  currency: "EUR",
  contact_id: null,
  company_id: null,
  items: [],
  subtotal: ZERO,
  vat_total: ZERO,
  total: ZERO,
  vat_summary: [],
  valid_until: null,
  vat_reason: null,
  note: null,
  invoice_id: null,
  created_at: ago(60),
  updated_at: ago(10),
  ...fields
})

// Payment terms 14 days.
// Q1: accepted 2026-11-10 → 2026-11-24 → November.
const Q1 = quote(1, { total: a(1500), updated_at: "2026-11-10T12:00:00.000Z" })
// Q2: accepted 2026-11-16T23:30Z = 17 November in Prague → 1 December (in UTC it would be 30 November).
const Q2 = quote(2, { currency: "CZK", total: a(20000), updated_at: "2026-11-16T23:30:00.000Z" })
// Q5: accepted 2026-09-01 → 2026-09-15, already past → the current month.
const Q5 = quote(5, { total: a(250), updated_at: "2026-09-01T10:00:00.000Z" })
// Not contracted: already invoiced, or only sent.
const Q3 = quote(3, { total: a(900), invoice_id: brand(InvoiceId, uuid(399)) })
const Q4 = quote(4, { status: "sent", total: a(400) })
const QUOTES = [Q1, Q2, Q3, Q4, Q5]

const SETTINGS = { timezone: TZ, payment_terms_days: 14, pipelines: PIPELINES }

describe("today", () => {
  it("is the organisation's calendar date", () => {
    expect(TODAY).toBe("2026-11-20")
  })
})

describe("pipeline_summary", () => {
  it("counts and sums each stage per currency, in pipeline order, with the last 30 days' wins and losses", () => {
    const summary = Pipelines.summarise(PIPELINES, DEALS, NOW)
    expect(summary).toEqual({
      pipelines: [
        {
          pipeline_id: P1.id,
          name: "Sales",
          stages: [
            // D1 1000.1 and D2 without a value: counted, adds nothing.
            { stage_id: S1, name: "Qualified", kind: "open", count: 2, values: [{ currency: "EUR", total: "1000.1" }] },
            { stage_id: S2, name: "Proposal", kind: "open", count: 1, values: [{ currency: "CZK", total: "2000" }] },
            { stage_id: S3, name: "Negotiation", kind: "open", count: 1, values: [{ currency: "EUR", total: "3000" }] },
            // D5 5000 EUR and D7 400 USD: two currencies, two totals.
            {
              stage_id: WON,
              name: "Won",
              kind: "won",
              count: 2,
              values: [
                { currency: "EUR", total: "5000" },
                { currency: "USD", total: "400" }
              ]
            },
            // 700.1 + 300.2 = 1000.3 exactly (in binary floating point it would be 1000.3000000000001).
            { stage_id: LOST, name: "Lost", kind: "lost", count: 2, values: [{ currency: "EUR", total: "1000.3" }] }
          ],
          // D5 (10 days ago) and D7 (exactly 30 × 24 h ago).
          won_last_30_days: {
            count: 2,
            values: [
              { currency: "EUR", total: "5000" },
              { currency: "USD", total: "400" }
            ]
          },
          // D9 (5 days ago); D6 (40 days ago) is outside.
          lost_last_30_days: { count: 1, values: [{ currency: "EUR", total: "300.2" }] }
        },
        {
          pipeline_id: P2.id,
          name: "Partners",
          stages: [
            { stage_id: T1, name: "Intro", kind: "open", count: 1, values: [{ currency: "EUR", total: "800" }] },
            { stage_id: T2, name: "Won", kind: "won", count: 0, values: [] }
          ],
          won_last_30_days: { count: 0, values: [] },
          lost_last_30_days: { count: 0, values: [] }
        }
      ]
    })
  })

  it("leaves a deal closed 30 days and a minute ago out", () => {
    const late = { ...D7, closed_at: new Date(Date.parse(NOW) - 30 * DAY - 60_000).toISOString() }
    const [sales] = Pipelines.summarise([P1], [D5, late], NOW).pipelines
    expect(sales?.won_last_30_days).toEqual({ count: 1, values: [{ currency: "EUR", total: "5000" }] })
  })
})

describe("list_unpaid_invoices", () => {
  const items = Receivables.unpaid(INVOICES, TODAY)

  it("lists issued, partial and overdue invoices only, most days past due first, then due date", () => {
    expect(items.map((i) => [i.number, i.days_past_due])).toEqual([
      ["2026-000007", 91],
      ["2026-000006", 90],
      ["2026-000005", 61],
      ["2026-000004", 60],
      ["2026-000003", 31],
      ["2026-000002", 30],
      // Not yet due: by due date (30 Nov, 10 Dec, 1 Mar).
      ["2026-000001", 0],
      ["2026-000013", 0],
      ["2026-000014", 0]
    ])
  })

  it("gives the outstanding gross amount exactly: 1000.50 − 400.20 = 600.30", () => {
    expect(items.find((i) => i.id === I2.id)).toEqual({
      id: I2.id,
      number: "2026-000002",
      kind: "normal",
      status: "partial",
      contact_id: null,
      company_id: null,
      currency: "EUR",
      total: "1000.5",
      paid_amount: "400.2",
      outstanding: "600.3",
      issue_date: "2026-08-01",
      due_date: "2026-10-21",
      days_past_due: 30
    })
    // 10000 − 2500 = 7500 CZK.
    expect(items.find((i) => i.id === I4.id)?.outstanding).toBe("7500")
  })

  it("never includes a draft, proforma, cancelled invoice, storno or paid invoice", () => {
    const ids = new Set(items.map((i) => i.id))
    for (const excluded of [I8, I9, I10, I11, I12]) expect(ids.has(excluded.id)).toBe(false)
  })

  it("overdue_only keeps days_past_due > 0", () => {
    const overdue = Receivables.unpaid(INVOICES, TODAY, { overdueOnly: true })
    expect(overdue.map((i) => i.number)).toEqual([
      "2026-000007",
      "2026-000006",
      "2026-000005",
      "2026-000004",
      "2026-000003",
      "2026-000002"
    ])
  })

  it("counts days in the organisation's time zone: due 'yesterday' in Prague is 'today' in UTC", () => {
    // 2026-11-20T23:30Z is already 21 November (00:30) in Prague.
    const late = Date.parse("2026-11-20T23:30:00.000Z")
    const dueToday = invoice(30, { total: a(10), due_date: "2026-11-20" })
    expect(Receivables.unpaid([dueToday], dateIn("Europe/Prague", late))[0]?.days_past_due).toBe(1)
    expect(Receivables.unpaid([dueToday], dateIn("UTC", late))[0]?.days_past_due).toBe(0)
  })

  it("orders equal urgency by number", () => {
    const i41 = invoice(41, { total: a(1), due_date: "2026-11-01" })
    const i40 = invoice(40, { total: a(1), due_date: "2026-11-01" })
    expect(Receivables.unpaid([i41, i40], TODAY).map((i) => i.number)).toEqual(["2026-000040", "2026-000041"])
  })
})

describe("receivables_ageing", () => {
  it("sums outstanding per currency into buckets, never across currencies", () => {
    const ageing = Receivables.ageing(Receivables.unpaid(INVOICES, TODAY), TODAY)
    expect(ageing).toEqual({
      as_of: "2026-11-20",
      currencies: [
        {
          currency: "CZK",
          not_yet_due: { count: 1, amount: "4000" }, // I13
          days_1_30: { count: 0, amount: "0" },
          days_31_60: { count: 1, amount: "7500" }, // I4, exactly 60 days
          days_61_90: { count: 1, amount: "3000" }, // I5, 61 days
          days_90_plus: { count: 0, amount: "0" },
          total: { count: 3, amount: "14500" } // 4000 + 7500 + 3000
        },
        {
          currency: "EUR",
          not_yet_due: { count: 2, amount: "1260" }, // I1 1210 + I14 50
          days_1_30: { count: 1, amount: "600.3" }, // I2, exactly 30 days
          days_31_60: { count: 1, amount: "500" }, // I3, 31 days
          days_61_90: { count: 1, amount: "200" }, // I6, exactly 90 days
          days_90_plus: { count: 1, amount: "100" }, // I7, 91 days
          total: { count: 6, amount: "2660.3" } // 1260 + 600.3 + 500 + 200 + 100
        }
      ]
    })
  })

  it("puts 0 / 1 / 30 / 31 / 60 / 61 / 90 / 91 days on the right side of each edge", () => {
    expect([0, 1, 30, 31, 60, 61, 90, 91, 400].map(Receivables.bucketOf)).toEqual([
      "not_yet_due",
      "days_1_30",
      "days_1_30",
      "days_31_60",
      "days_31_60",
      "days_61_90",
      "days_61_90",
      "days_90_plus",
      "days_90_plus"
    ])
  })

  it("narrows to one contact (through the repository filter: here the same predicate)", () => {
    const own = INVOICES.filter((i) => i.contact_id === CONTACT)
    const ageing = Receivables.ageing(Receivables.unpaid(own, TODAY), TODAY)
    // I1 1210 not yet due, I3 500 at 31 days.
    expect(ageing.currencies).toEqual([
      {
        currency: "EUR",
        not_yet_due: { count: 1, amount: "1210" },
        days_1_30: { count: 0, amount: "0" },
        days_31_60: { count: 1, amount: "500" },
        days_61_90: { count: 0, amount: "0" },
        days_90_plus: { count: 0, amount: "0" },
        total: { count: 2, amount: "1710" }
      }
    ])
  })
})

describe("stalled_deals", () => {
  it("takes the median of completed visits; an even count averages the two middle ones", () => {
    const medians = Stalled.stageMedians(VISITS)
    expect(medians.get(S1)).toBe(4 * DAY) // 2, 4, 9
    expect(medians.get(S2)).toBe(4.5 * DAY) // 1, 3, 6, 10 → (3 + 6) / 2
    expect(medians.get(T1)).toBe(6 * DAY)
    expect(medians.has(S3)).toBe(false) // no completed visit
    expect(Stalled.median([])).toBeNull()
  })

  it("lists stalled deals by time in stage over the median, then deals without a baseline", () => {
    const items = Stalled.stalledDeals(PIPELINES, OPEN, VISITS, NOW)
    expect(items.map((i) => [i.title, i.days_in_stage, i.median_days])).toEqual([
      ["Gamma", 10, 4.5], // 10 / 4.5 = 2.22
      ["Alpha", 6, 4], // 6 / 4 = 1.5
      ["Theta", 7.1, 6], // 7.125 / 6 = 1.19; 7.125 days shows as 7.1
      ["Delta", 2, null] // Negotiation has no completed visit: no baseline
    ])
    // Beta: 3 days in Qualified, under its median of 4: not stalled, not listed.
    expect(items[0]).toEqual({
      deal_id: D3.id,
      title: "Gamma",
      pipeline_id: P1.id,
      stage_id: S2,
      stage_name: "Proposal",
      days_in_stage: 10,
      median_days: 4.5,
      value: "2000",
      currency: "CZK",
      owner_id: null,
      contact_id: null
    })
  })

  it("ignores won and lost deals", () => {
    expect(Stalled.stalledDeals(PIPELINES, DEALS, VISITS, NOW)).toHaveLength(4)
  })

  it("without any history every open deal is listed with median_days null", () => {
    const items = Stalled.stalledDeals(
      PIPELINES,
      OPEN,
      VISITS.filter((v) => v.left_at === null),
      NOW
    )
    expect(items.map((i) => i.median_days)).toEqual([null, null, null, null, null])
    // Longest in stage first: Gamma 10, Theta 7.1, Alpha 6, Beta 3, Delta 2.
    expect(items.map((i) => i.title)).toEqual(["Gamma", "Theta", "Alpha", "Beta", "Delta"])
  })
})

describe("cash_flow_forecast", () => {
  const result = CashFlow.forecast({
    months: 3,
    today: TODAY,
    settings: SETTINGS,
    invoices: INVOICES,
    quotes: QUOTES,
    deals: DEALS
  })

  it("keeps invoiced, contracted and weighted apart, per month and currency", () => {
    expect(result.months).toEqual([
      {
        month: "2026-11",
        amounts: [
          // invoiced: overdue I4 7500 + I5 3000 counted now. weighted: Gamma 2000 × 2/4 (close date in October → now).
          { currency: "CZK", invoiced: "10500", contracted: "0", weighted: "1000" },
          // invoiced: I1 1210 (due 30 Nov) + overdue I2 600.3 + I3 500 + I6 200 + I7 100 = 2610.3.
          // contracted: Q1 1500 (due 24 Nov) + Q5 250 (due in September → now) = 1750.
          { currency: "EUR", invoiced: "2610.3", contracted: "1750", weighted: "0" }
        ]
      },
      {
        month: "2026-12",
        amounts: [
          // invoiced: I13 due 10 Dec. contracted: Q2, accepted 17 Nov in Prague + 14 days = 1 Dec.
          { currency: "CZK", invoiced: "4000", contracted: "20000", weighted: "0" },
          // weighted: Alpha 1000.1 × 1/4 = 250.025 → 250.03 (half away from zero).
          { currency: "EUR", invoiced: "0", contracted: "0", weighted: "250.03" }
        ]
      },
      {
        month: "2027-01",
        amounts: [
          { currency: "CZK", invoiced: "0", contracted: "0", weighted: "0" },
          // Theta 800 × 50 % (the stage's own probability).
          { currency: "EUR", invoiced: "0", contracted: "0", weighted: "400" }
        ]
      }
    ])
    // I14 (due March) is beyond the three months; nothing is converted between currencies.
  })

  it("counts open deals without a value or an expected close date as excluded", () => {
    // Beta (no value) and Delta (no expected close date).
    expect(result.excluded_deals).toBe(2)
    expect(result.currency_note).toBe(CashFlow.CURRENCY_NOTE)
  })

  it("derives stage probabilities from position among open stages: i / (n + 1)", () => {
    const p = (id: StageId) => BigDecimal.format(CashFlow.stageProbability(P1, id) as BigDecimal.BigDecimal)
    expect([p(S1), p(S2), p(S3)]).toEqual(["0.25", "0.5", "0.75"])
    expect(CashFlow.stageProbability(P1, WON)).toBeUndefined()
    expect(BigDecimal.format(CashFlow.stageProbability(P2, T1) as BigDecimal.BigDecimal)).toBe("0.5")
  })

  it("dates a contracted quote from its acceptance day in the organisation's time zone", () => {
    expect(CashFlow.contractedDate(Q2, SETTINGS)).toBe("2026-12-01")
    expect(CashFlow.contractedDate(Q2, { ...SETTINGS, timezone: "UTC" })).toBe("2026-11-30")
  })

  it("steps months across a year end", () => {
    expect(CashFlow.addMonths("2026-11", 2)).toBe("2027-01")
    expect(CashFlow.addMonths("2026-12", 13)).toBe("2028-01")
  })
})

describe("sales_health", () => {
  const health = Health.salesHealth({
    days: 90,
    now: NOW,
    today: TODAY,
    defaultCurrency: "EUR",
    pipelines: PIPELINES,
    deals: DEALS,
    visits: VISITS,
    unpaid: Receivables.unpaid(INVOICES, TODAY),
    overdueTasks: 3
  })
  const byKey = Object.fromEntries(health.measures.map((m) => [m.key, m]))

  it("scores each measure against the thresholds", () => {
    expect(health.measures.map((m) => [m.key, m.value, m.status])).toEqual([
      // Won D5, D7; lost D6, D9 within 90 days: 2 / 4.
      ["win_rate", 50, "good"],
      // Stalled Alpha, Gamma, Theta of 5 open (Delta has no baseline, Beta is under its median).
      ["stalled_share", 60, "poor"],
      // Gamma (expected 31 Oct) of 5 open: 20 % — between 10 and 25.
      ["overdue_close_share", 20, "watch"],
      ["overdue_tasks", 3, "good"],
      // EUR: 1400.3 / 2660.3 = 52.6 %; CZK: 10500 / 14500 = 72.4 % → the worst, CZK.
      ["overdue_receivables_share", 72.4, "poor"],
      // EUR weighted open: Alpha 250.025 + Delta 3000 × 3/4 + Theta 400 = 2900.025; won EUR: 5000 → 0.58.
      ["pipeline_coverage", 0.58, "poor"]
    ])
    expect(byKey.overdue_receivables_share?.explanation).toContain("CZK")
    expect(byKey.win_rate?.threshold).toEqual({ good: 30, poor: 15 })
    expect(byKey.pipeline_coverage?.explanation).toContain("2900.03 EUR")
  })

  it("averages good 100, watch 50, poor 0 into the overall score", () => {
    // (100 + 0 + 50 + 100 + 0 + 0) / 6 = 41.7 → 42: watch (40 ≤ score < 75).
    expect(health.score).toBe(42)
    expect(health.status).toBe("watch")
    expect(health.as_of).toBe(NOW)
    expect(health.window_days).toBe(90)
  })

  it("gives null values with status watch when there is nothing to measure, and leaves them out of the score", () => {
    const empty = Health.salesHealth({
      days: 30,
      now: NOW,
      today: TODAY,
      defaultCurrency: "EUR",
      pipelines: PIPELINES,
      deals: [],
      visits: [],
      unpaid: [],
      overdueTasks: 0
    })
    expect(empty.measures.map((m) => [m.key, m.value, m.status])).toEqual([
      ["win_rate", null, "watch"],
      ["stalled_share", null, "watch"],
      ["overdue_close_share", null, "watch"],
      ["overdue_tasks", 0, "good"],
      ["overdue_receivables_share", null, "watch"],
      ["pipeline_coverage", null, "watch"]
    ])
    expect(empty.score).toBe(100)
    expect(empty.status).toBe("good")
  })

  it("applies the threshold edges as documented", () => {
    expect(Health.statusOf("win_rate", 30)).toBe("good")
    expect(Health.statusOf("win_rate", 15)).toBe("watch")
    expect(Health.statusOf("win_rate", 14.9)).toBe("poor")
    expect(Health.statusOf("stalled_share", 20)).toBe("good")
    expect(Health.statusOf("stalled_share", 40)).toBe("watch")
    expect(Health.statusOf("stalled_share", 40.1)).toBe("poor")
    expect(Health.statusOf("overdue_tasks", 5)).toBe("good")
    expect(Health.statusOf("overdue_tasks", 20)).toBe("watch")
    expect(Health.statusOf("overdue_tasks", 21)).toBe("poor")
    expect(Health.statusOf("pipeline_coverage", 3)).toBe("good")
    expect(Health.statusOf("pipeline_coverage", 1)).toBe("watch")
    expect(Health.statusOf("pipeline_coverage", 0.99)).toBe("poor")
  })
})

// ---------------------------------------------------------------------------------------------------------
// Properties

const CURRENCIES = ["EUR", "CZK", "JPY", "BHD"] as const
/** An amount in minor units of its currency. */
const amountIn = (currency: string, minor: number): Amount => {
  const exponent = currency === "JPY" ? 0 : currency === "BHD" ? 3 : 2
  return fromDecimal(BigDecimal.make(BigInt(minor), exponent))
}
/** Plain canonical decimal text, with no more decimals than the currency's minor unit. */
const isMoneyIn = (currency: string, amount: Amount): boolean => {
  const exponent = currency === "JPY" ? 0 : currency === "BHD" ? 3 : 2
  return AmountText.safeParse(amount).success && (amount.split(".")[1]?.length ?? 0) <= exponent
}
const dateArb = fc
  .integer({ min: 0, max: 800 })
  .map((offset) => new Date(Date.parse("2026-01-01T00:00:00.000Z") + offset * DAY).toISOString().slice(0, 10))

const invoiceArb = fc
  .record({
    n: fc.integer({ min: 1, max: 1_000_000 }),
    currency: fc.constantFrom(...CURRENCIES),
    total: fc.integer({ min: -50_000, max: 10_000_000 }),
    paidShare: fc.integer({ min: 0, max: 100 }),
    status: fc.constantFrom(...(["draft", "issued", "partial", "paid", "overdue", "cancelled"] as const)),
    kind: fc.constantFrom(...(["normal", "storno", "corrective", "proforma", "advance"] as const)),
    due: dateArb
  })
  .map(({ n, currency, total, paidShare, status, kind, due }) =>
    invoice(n, {
      currency,
      total: amountIn(currency, total),
      paid_amount: amountIn(currency, total > 0 ? Math.floor((total * paidShare) / 100) : 0),
      status,
      kind,
      due_date: due
    })
  )

describe("properties", () => {
  it("ageing buckets partition the outstanding: per currency the buckets add up to the total", () => {
    fc.assert(
      fc.property(fc.array(invoiceArb, { maxLength: 40 }), dateArb, (invoices, today) => {
        const items = Receivables.unpaid(invoices, today)
        const ageing = Receivables.ageing(items, today)
        for (const row of ageing.currencies) {
          const buckets = [row.not_yet_due, row.days_1_30, row.days_31_60, row.days_61_90, row.days_90_plus]
          const count = buckets.reduce((sum, b) => sum + b.count, 0)
          const amount = buckets.reduce((sum, b) => BigDecimal.sum(sum, toDecimal(b.amount)), BigDecimal.make(0n, 0))
          expect(count).toBe(row.total.count)
          expect(BigDecimal.equals(amount, toDecimal(row.total.amount))).toBe(true)
          expect(fromDecimal(amount)).toBe(row.total.amount)
          for (const b of [...buckets, row.total]) expect(isMoneyIn(row.currency, b.amount)).toBe(true)
          const own = items.filter((i) => i.currency === row.currency)
          expect(own.length).toBe(row.total.count)
        }
        // Every unpaid item has a positive outstanding and a non-negative days past due.
        for (const item of items) {
          expect(BigDecimal.isPositive(toDecimal(item.outstanding))).toBe(true)
          expect(isMoneyIn(item.currency, item.outstanding)).toBe(true)
          expect(item.days_past_due).toBeGreaterThanOrEqual(0)
        }
      })
    )
  })

  it("forecast figures are never negative and every month lists the same currencies", () => {
    const dealArb = fc
      .record({
        n: fc.integer({ min: 1, max: 1_000_000 }),
        stageId: fc.constantFrom(S1, S2, S3, WON, LOST, T1),
        value: fc.option(fc.integer({ min: 0, max: 10_000_000 })),
        close: fc.option(dateArb),
        currency: fc.constantFrom(...CURRENCIES)
      })
      .map(({ n, stageId, value, close, currency }) =>
        deal(n, {
          status_id: stageId,
          currency,
          value: value === null ? null : amountIn(currency, value),
          expected_close_date: close
        })
      )
    const quoteArb = fc
      .record({
        n: fc.integer({ min: 1, max: 1_000_000 }),
        currency: fc.constantFrom(...CURRENCIES),
        total: fc.integer({ min: 0, max: 10_000_000 }),
        at: dateArb,
        status: fc.constantFrom(...(["draft", "sent", "accepted", "rejected"] as const))
      })
      .map(({ n, currency, total, at, status }) =>
        quote(n, { currency, total: amountIn(currency, total), status, updated_at: `${at}T12:00:00.000Z` })
      )
    fc.assert(
      fc.property(
        fc.array(invoiceArb, { maxLength: 20 }),
        fc.array(quoteArb, { maxLength: 10 }),
        fc.array(dealArb, { maxLength: 20 }),
        fc.integer({ min: 1, max: 24 }),
        dateArb,
        (invoices, quotes, deals, months, today) => {
          const result = CashFlow.forecast({ months, today, settings: SETTINGS, invoices, quotes, deals })
          expect(result.months).toHaveLength(months)
          const currencies = result.months[0]?.amounts.map((a) => a.currency)
          for (const month of result.months) {
            expect(month.amounts.map((a) => a.currency)).toEqual(currencies)
            for (const row of month.amounts) {
              for (const figure of [row.invoiced, row.contracted, row.weighted]) {
                expect(BigDecimal.isNegative(toDecimal(figure))).toBe(false)
                expect(isMoneyIn(row.currency, figure)).toBe(true)
              }
            }
          }
          expect(result.excluded_deals).toBeLessThanOrEqual(deals.filter((d) => d.status_kind === "open").length)
        }
      )
    )
  })

  it("the median lies between the smallest and the largest value", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 30 }), (values) => {
        const m = Stalled.median(values) as number
        expect(m).toBeGreaterThanOrEqual(Math.min(...values))
        expect(m).toBeLessThanOrEqual(Math.max(...values))
      })
    )
  })

  it("a health score is always 0-100 and its status follows the bands", () => {
    fc.assert(
      fc.property(fc.array(invoiceArb, { maxLength: 10 }), fc.integer({ min: 0, max: 50 }), (invoices, tasks) => {
        const health = Health.salesHealth({
          days: 90,
          now: NOW,
          today: TODAY,
          defaultCurrency: "EUR",
          pipelines: PIPELINES,
          deals: DEALS,
          visits: VISITS,
          unpaid: Receivables.unpaid(invoices, TODAY) as ReadonlyArray<UnpaidInvoice>,
          overdueTasks: tasks
        })
        expect(health.score).not.toBeNull()
        expect(health.score).toBeGreaterThanOrEqual(0)
        expect(health.score).toBeLessThanOrEqual(100)
      })
    )
  })
})
