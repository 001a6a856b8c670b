/**
 * The analysis tools over MCP (SDK client, Streamable HTTP, real server) on every store. The data set is
 * made through REST and the admin API; today is the real date, so dates are chosen relative to it and the
 * expected figures are worked out by hand below. Should midnight pass in the organisation's zone, the
 * tests that follow run on a data set made for the new day.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { afterAll, beforeAll, expect, it } from "vitest"
import { callTool, mcpClient } from "../support/mcp.js"
import type { Client as RestClient } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"
import { onOneDay, todayIn } from "../support/today.js"

const ZONE = "Europe/Prague"
const DAY_MS = 86_400_000
const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10)
const addMonths = (month: string, months: number): string => {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + months
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, "0")}`
}

const ids = {
  sales: crypto.randomUUID(),
  qualified: crypto.randomUUID(),
  proposal: crypto.randomUUID(),
  won: crypto.randomUUID(),
  lost: crypto.randomUUID()
}
// Qualified carries its own 25 %; Proposal is open stage 2 of 2 → 2/3.
const SETTINGS = {
  timezone: ZONE,
  default_currency: "EUR",
  payment_terms_days: 14,
  country: "CZ",
  pipelines: [
    {
      id: ids.sales,
      name: "Sales",
      stages: [
        { id: ids.qualified, name: "Qualified", kind: "open", probability: 25 },
        { id: ids.proposal, name: "Proposal", kind: "open" },
        { id: ids.won, name: "Won", kind: "won" },
        { id: ids.lost, name: "Lost", kind: "lost" }
      ]
    }
  ]
}
const SCOPES = ["read", "write", "quotes:write", "invoices:write"]

/** 100 net at 21 %: 121 gross. */
const line = (unit_price: number) => ({ name: "Work", quantity: 1, unit_price, vat_rate: 21 })

const ok = async <T = any>(promise: Promise<{ status: number; text: string; body: any }>, status = 200): Promise<T> => {
  const response = await promise
  expect(response.status, response.text).toBe(status)
  return response.body
}

onEveryStore("mcp analytics", (server) => {
  /** The data set made for each day the tests ran on (one, unless midnight passed), by the day. */
  const dataSets = new Map<string, Promise<{ readonly mcp: Client; readonly made: Record<string, any> }>>()

  const make = async (today: string) => {
    const made: Record<string, any> = {}
    const { key, client } = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
    const rest: RestClient = client

    // Deals. Alpha enters Qualified first and stays; Gamma and Delta pass through Qualified afterwards and
    // leave it at once, so Qualified's median visit is shorter than Alpha's stay: Alpha is stalled.
    made.alpha = await ok(
      rest.post("/deals", { title: "Alpha", value: 1000, expected_close_date: addDays(today, 40) }),
      201
    )
    made.gamma = await ok(rest.post("/deals", { title: "Gamma", value: 300 }), 201)
    await ok(rest.post(`/deals/${made.gamma.id}/status`, { status_id: ids.won }))
    made.delta = await ok(rest.post("/deals", { title: "Delta", value: 200 }), 201)
    await ok(rest.post(`/deals/${made.delta.id}/status`, { status_id: ids.lost, lost_reason: "price" }))
    // Proposal: no deal ever left it, so no baseline (median null).
    made.beta = await ok(
      rest.post("/deals", {
        title: "Beta",
        value: 500,
        currency: "CZK",
        status_id: ids.proposal,
        expected_close_date: addDays(today, -5)
      }),
      201
    )
    made.epsilon = await ok(rest.post("/deals", { title: "Epsilon", status_id: ids.proposal }), 201)

    // Invoices.
    made.contact = await ok(
      rest.post("/contacts", { first_name: "Eva", email: `eva-${crypto.randomUUID()}@example.com` }),
      201
    )
    const issue = async (body: Record<string, unknown>) => {
      const draft = await ok(rest.post("/invoices", body), 201)
      return ok(rest.post(`/invoices/${draft.id}/issue`))
    }
    // I1: 121 EUR due 40 days ago, 21 paid → partial, 100 outstanding, 40 days past due.
    made.i1 = await issue({ items: [line(100)], issue_date: addDays(today, -45), due_date: addDays(today, -40) })
    await ok(rest.post(`/invoices/${made.i1.id}/payments`, { amount: 21 }), 201)
    // I2: 1210 EUR due in 10 days, the contact's.
    made.i2 = await issue({ items: [line(1000)], contact_id: made.contact.id, due_date: addDays(today, 10) })
    // I3: 1210 CZK due 5 days ago.
    made.i3 = await issue({
      items: [line(1000)],
      currency: "CZK",
      exchange_rate: 0.04,
      issue_date: addDays(today, -10),
      due_date: addDays(today, -5)
    })
    // Never counted: a fully paid invoice, a draft, an issued proforma.
    made.paid = await issue({ items: [line(100)], due_date: addDays(today, -1) })
    await ok(rest.post(`/invoices/${made.paid.id}/payments`, { amount: 121 }), 201)
    await ok(rest.post("/invoices", { items: [line(5000)], due_date: addDays(today, -30) }), 201)
    await issue({ kind: "proforma", items: [line(7000)], due_date: addDays(today, -30) })

    // An accepted quote, not invoiced: 121 EUR expected at today + 14 days.
    made.quote = await ok(rest.post("/quotes", { contact_id: made.contact.id, items: [line(100)] }), 201)
    await ok(server().admin.post(`/quotes/${made.quote.id}/send`))
    await ok(server().admin.post(`/quotes/${made.quote.id}/accept`))

    // Tasks: one overdue, one due tomorrow, one overdue but done.
    const now = Date.now()
    await ok(rest.post("/tasks", { title: "Call back", due_at: new Date(now - DAY_MS).toISOString() }), 201)
    await ok(rest.post("/tasks", { title: "Later", due_at: new Date(now + DAY_MS).toISOString() }), 201)
    const done = await ok(rest.post("/tasks", { title: "Done", due_at: new Date(now - 2 * DAY_MS).toISOString() }), 201)
    await ok(rest.post(`/tasks/${done.id}/complete`))

    return { mcp: await mcpClient(server(), key), made }
  }

  const dataSet = (today: string) => {
    const made = dataSets.get(today) ?? make(today)
    dataSets.set(today, made)
    return made
  }

  beforeAll(() => dataSet(todayIn(ZONE)))

  afterAll(async () => {
    for (const outcome of await Promise.allSettled(dataSets.values())) {
      if (outcome.status === "fulfilled") await outcome.value.mcp.close()
    }
  })

  it("pipeline_summary: per stage counts and values per currency, plus the last 30 days", () =>
    onOneDay(ZONE, async (today) => {
      const { mcp } = await dataSet(today)
      const result = await callTool(mcp, "pipeline_summary")
      expect(result.isError).toBe(false)
      expect(result.value).toEqual({
        pipelines: [
          {
            pipeline_id: ids.sales,
            name: "Sales",
            stages: [
              {
                stage_id: ids.qualified,
                name: "Qualified",
                kind: "open",
                count: 1,
                values: [{ currency: "EUR", total: 1000 }]
              },
              // Beta 500 CZK and Epsilon without a value.
              {
                stage_id: ids.proposal,
                name: "Proposal",
                kind: "open",
                count: 2,
                values: [{ currency: "CZK", total: 500 }]
              },
              { stage_id: ids.won, name: "Won", kind: "won", count: 1, values: [{ currency: "EUR", total: 300 }] },
              { stage_id: ids.lost, name: "Lost", kind: "lost", count: 1, values: [{ currency: "EUR", total: 200 }] }
            ],
            won_last_30_days: { count: 1, values: [{ currency: "EUR", total: 300 }] },
            lost_last_30_days: { count: 1, values: [{ currency: "EUR", total: 200 }] }
          }
        ]
      })
      const one = await callTool(mcp, "pipeline_summary", { pipeline_id: ids.sales.toUpperCase() })
      expect(one.value.pipelines).toHaveLength(1)
      const missing = await callTool(mcp, "pipeline_summary", { pipeline_id: crypto.randomUUID() })
      expect(missing).toMatchObject({ isError: true, value: { error: "not_found" } })
    }))

  it("list_unpaid_invoices: outstanding gross and days past due, most overdue first", () =>
    onOneDay(ZONE, async (today) => {
      const { mcp, made } = await dataSet(today)
      const result = await callTool(mcp, "list_unpaid_invoices")
      expect(result.isError).toBe(false)
      expect(result.value.has_more).toBe(false)
      expect(result.value.items.map((i: any) => [i.id, i.currency, i.outstanding, i.days_past_due])).toEqual([
        [made.i1.id, "EUR", 100, 40], // 121 − 21
        [made.i3.id, "CZK", 1210, 5],
        [made.i2.id, "EUR", 1210, 0]
      ])
      expect(result.value.items[0]).toMatchObject({
        number: made.i1.number,
        kind: "normal",
        status: "partial",
        total: 121,
        paid_amount: 21,
        due_date: addDays(today, -40)
      })

      const overdue = await callTool(mcp, "list_unpaid_invoices", { overdue_only: true })
      expect(overdue.value.items.map((i: any) => i.id)).toEqual([made.i1.id, made.i3.id])
      const first = await callTool(mcp, "list_unpaid_invoices", { limit: 1 })
      expect(first.value).toMatchObject({ items: [{ id: made.i1.id }], has_more: true })
      const theirs = await callTool(mcp, "list_unpaid_invoices", { contact_id: made.contact.id })
      expect(theirs.value.items.map((i: any) => i.id)).toEqual([made.i2.id])
    }))

  it("receivables_ageing: buckets per currency", () =>
    onOneDay(ZONE, async (today) => {
      const { mcp } = await dataSet(today)
      const result = await callTool(mcp, "receivables_ageing")
      const zero = { count: 0, amount: 0 }
      expect(result.value).toEqual({
        as_of: today,
        currencies: [
          {
            currency: "CZK",
            not_yet_due: zero,
            days_1_30: { count: 1, amount: 1210 },
            days_31_60: zero,
            days_61_90: zero,
            days_90_plus: zero,
            total: { count: 1, amount: 1210 }
          },
          {
            currency: "EUR",
            not_yet_due: { count: 1, amount: 1210 },
            days_1_30: zero,
            days_31_60: { count: 1, amount: 100 },
            days_61_90: zero,
            days_90_plus: zero,
            total: { count: 2, amount: 1310 }
          }
        ]
      })
    }))

  it("stalled_deals: longer than the stage median first, then deals without a baseline", () =>
    onOneDay(ZONE, async (today) => {
      const { mcp, made } = await dataSet(today)
      const result = await callTool(mcp, "stalled_deals")
      expect(result.isError).toBe(false)
      // Everything happened within seconds: days round to 0. Without a baseline, the longer wait comes
      // first; Beta and Epsilon may have entered their stage in the same millisecond, which the id decides.
      const [first, ...unmeasured] = result.value.items.map((i: any) => [i.title, i.stage_name, i.median_days])
      expect(first).toEqual(["Alpha", "Qualified", 0])
      expect(unmeasured).toHaveLength(2)
      expect(unmeasured).toEqual(
        expect.arrayContaining([
          ["Beta", "Proposal", null],
          ["Epsilon", "Proposal", null]
        ])
      )
      expect(result.value.items[0]).toMatchObject({
        deal_id: made.alpha.id,
        pipeline_id: ids.sales,
        stage_id: ids.qualified,
        days_in_stage: 0,
        value: 1000,
        currency: "EUR"
      })
      const limited = await callTool(mcp, "stalled_deals", { limit: 1 })
      expect(limited.value).toMatchObject({ items: [{ title: "Alpha" }], has_more: true })
    }))

  it("cash_flow_forecast: invoiced, contracted and weighted kept apart, overdue in the current month", () =>
    onOneDay(ZONE, async (today) => {
      const { mcp } = await dataSet(today)
      const result = await callTool(mcp, "cash_flow_forecast", { months: 3 })
      expect(result.isError).toBe(false)
      const current = today.slice(0, 7)
      const months = [0, 1, 2].map((k) => addMonths(current, k))
      const expected = new Map(
        months.map((month) => [
          month,
          {
            CZK: { currency: "CZK", invoiced: 0, contracted: 0, weighted: 0 },
            EUR: { currency: "EUR", invoiced: 0, contracted: 0, weighted: 0 }
          }
        ])
      )
      const at = (date: string) => {
        const month = date.slice(0, 7) < current ? current : date.slice(0, 7)
        return expected.get(month)!
      }
      // Overdue I1 (100 EUR) and I3 (1210 CZK) now; I2 (1210 EUR) in its due month.
      at(today).EUR.invoiced += 100
      at(today).CZK.invoiced += 1210
      at(addDays(today, 10)).EUR.invoiced += 1210
      // The quote, accepted today: 121 EUR at today + 14 days.
      at(addDays(today, 14)).EUR.contracted += 121
      // Alpha 1000 × 25 % at today + 40; Beta 500 CZK × 2/3 = 333.33 now (its close date has passed).
      at(addDays(today, 40)).EUR.weighted += 250
      at(today).CZK.weighted += 333.33
      expect(result.value.months).toEqual(
        months.map((month) => ({ month, amounts: [expected.get(month)!.CZK, expected.get(month)!.EUR] }))
      )
      // Epsilon has neither a value nor an expected close date.
      expect(result.value.excluded_deals).toBe(1)
      expect(result.value.currency_note).toContain("never converted")

      const refused = await callTool(mcp, "cash_flow_forecast", { months: 25 })
      expect(refused).toMatchObject({ isError: true, value: { error: "validation_failed" } })
    }))

  it("sales_health: the scorecard with its thresholds", () =>
    onOneDay(ZONE, async (today) => {
      const { mcp } = await dataSet(today)
      const result = await callTool(mcp, "sales_health")
      expect(result.isError).toBe(false)
      expect(result.value.window_days).toBe(90)
      expect(result.value.measures.map((m: any) => [m.key, m.value, m.status])).toEqual([
        ["win_rate", 50, "good"], // Gamma won, Delta lost
        ["stalled_share", 33.3, "watch"], // Alpha of Alpha, Beta, Epsilon
        ["overdue_close_share", 33.3, "poor"], // Beta's close date has passed
        ["overdue_tasks", 1, "good"],
        ["overdue_receivables_share", 100, "poor"], // CZK: all 1210 overdue (EUR: 100 / 1310 = 7.6 %)
        ["pipeline_coverage", 0.83, "poor"] // EUR weighted open 250 / won 300
      ])
      // (100 + 50 + 0 + 100 + 0 + 0) / 6 = 41.7 → 42.
      expect(result.value).toMatchObject({ score: 42, status: "watch" })
      expect(result.value.measures[0].threshold).toEqual({ good: 30, poor: 15 })
    }))

  it("answers a read-only key: every analysis tool is read-only", async () => {
    const { key } = await server().tenant({ scopes: ["read"] })
    const readOnly = await mcpClient(server(), key)
    try {
      const listed = await readOnly.listTools()
      for (const name of [
        "pipeline_summary",
        "list_unpaid_invoices",
        "stalled_deals",
        "cash_flow_forecast",
        "receivables_ageing",
        "sales_health"
      ]) {
        const entry = listed.tools.find((candidate) => candidate.name === name)
        expect(entry?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true })
        expect((await callTool(readOnly, name)).isError).toBe(false)
      }
    } finally {
      await readOnly.close()
    }
  })
})
