/**
 * Test clocks (issue 16): an organisation created with `test_mode: true` has a business clock the
 * admin API freezes, advances and returns to real time. Date decisions follow it (default invoice
 * dates, overdue invoices, quote expiry, ticket SLA breach, task due windows); keys, rate windows
 * and idempotency stay on real time; another organisation is untouched.
 */
import { Access, Tickets } from "@crm/core"
import * as Effect from "effect/Effect"
import { expect, it } from "vitest"
import { callTool, mcpClient } from "../support/mcp.js"
import type { Client, TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"
import { onOneDay } from "../support/today.js"

const SCOPES = ["read", "write", "quotes:write", "invoices:write"]
const SETTINGS = { default_currency: "EUR", timezone: "UTC", payment_terms_days: 10, country: "CZ" }
const WORK = { name: "Work", quantity: 1, unit_price: 100, vat_rate: 21 }
/** In the future, so that nothing the real time decides can be mistaken for the frozen clock's doing. */
const FROZEN = "2030-03-10T12:00:00.000Z"

/** A test-mode organisation (or, with `testMode: false`, a live one) and a key of it. */
const tenant = async (server: TestServer, testMode = true) => {
  const org = await server.admin.post("/organisations", {
    name: testMode ? "Sandbox" : "Live",
    settings: SETTINGS,
    ...(testMode ? { test_mode: true } : {})
  })
  expect(org.status, org.text).toBe(201)
  const key = await server.admin.post(`/organisations/${org.body.id}/keys`, { name: "test", scopes: SCOPES })
  expect(key.status, key.text).toBe(201)
  const clock = (body: Record<string, unknown>) => server.admin.post(`/organisations/${org.body.id}/clock`, body)
  return { organisation: org.body, key: key.body.key as string, client: server.as(key.body.key), clock }
}

const issued = async (client: Client, body: Record<string, unknown> = {}) => {
  const draft = await client.post("/invoices", { items: [WORK], ...body })
  expect(draft.status, draft.text).toBe(201)
  const done = await client.post(`/invoices/${draft.body.id}/issue`)
  expect(done.status, done.text).toBe(200)
  return done.body
}

const sentQuote = async (server: TestServer, client: Client, validUntil: string) => {
  const created = await client.post("/quotes", { items: [WORK], valid_until: validUntil })
  expect(created.status, created.text).toBe(201)
  const sent = await server.admin.post(`/quotes/${created.body.id}/send`)
  expect(sent.status, sent.text).toBe(200)
  return sent.body
}

onEveryStore("test clock", (server) => {
  it("creates a test-mode organisation on real time, and says so on the organisation and in /me", () =>
    onOneDay("UTC", async (today) => {
      const sandbox = await tenant(server())
      expect(sandbox.organisation.test_clock).toEqual({ frozen_at: null })
      const live = await tenant(server(), false)
      expect(live.organisation.test_clock).toBeUndefined()
      expect((await server().admin.get(`/organisations/${sandbox.organisation.id}`)).body.test_clock).toEqual({
        frozen_at: null
      })

      const me = await sandbox.client.get("/me")
      expect(me.status).toBe(200)
      expect(me.body.key.test_mode).toBe(true)
      expect((await live.client.get("/me")).body.key.test_mode).toBe(false)

      // On real time until frozen: default dates are today.
      const draft = await sandbox.client.post("/invoices", { items: [WORK] })
      expect(draft.body.issue_date).toBe(today)

      const refused = await server().admin.post("/organisations", { name: "x", test_mode: "yes" })
      expect(refused.status).toBe(422)
    }))

  it("freezes the clock: default issue and due dates, the invoice number's year and /me follow it", async () => {
    const { client, clock, organisation } = await tenant(server())
    const frozen = await clock({ frozen_at: "2030-03-10T14:00:00+02:00" })
    expect(frozen.status, frozen.text).toBe(200)
    expect(frozen.body).toEqual({
      organisation_id: organisation.id,
      test_mode: true,
      frozen_at: FROZEN,
      now: FROZEN,
      jobs: { quotes_expired: 0, invoices_overdue: 0 }
    })
    expect((await server().admin.get(`/organisations/${organisation.id}`)).body.test_clock).toEqual({
      frozen_at: FROZEN
    })

    const invoice = await issued(client)
    expect(invoice.issue_date).toBe("2030-03-10")
    expect(invoice.fulfilment_date).toBe("2030-03-10")
    expect(invoice.due_date).toBe("2030-03-20")
    expect(invoice.number).toContain("2030")

    // A frozen clock does not tick: a while later it still stands there.
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await clock({ advance_by: "PT0S" })).body.now).toBe(FROZEN)
    // Record timestamps stay on real time.
    expect(Date.parse(invoice.created_at)).toBeLessThan(Date.parse(FROZEN) - 86_400_000)
  })

  it("advancing past the due date makes an issued invoice overdue, in that request", async () => {
    const { client, clock } = await tenant(server())
    expect((await clock({ frozen_at: FROZEN })).status).toBe(200)
    const invoice = await issued(client)
    expect(invoice.due_date).toBe("2030-03-20")
    const early = await issued(client, { due_date: "2030-03-25" })

    const notYet = await clock({ advance_by: "P10D" })
    expect(notYet.status, notYet.text).toBe(200)
    expect(notYet.body).toMatchObject({ frozen_at: "2030-03-20T12:00:00.000Z", jobs: { invoices_overdue: 0 } })
    expect((await client.get(`/invoices/${invoice.id}`)).body.status).toBe("issued")

    const past = await clock({ advance_by: "P1D" })
    expect(past.body).toMatchObject({ frozen_at: "2030-03-21T12:00:00.000Z", jobs: { invoices_overdue: 1 } })
    expect((await client.get(`/invoices/${invoice.id}`)).body.status).toBe("overdue")
    expect((await client.get(`/invoices/${early.id}`)).body.status).toBe("issued")
    expect((await client.get("/invoices?status=overdue")).body.data.map((row: any) => row.id)).toEqual([invoice.id])

    // Hours add up too.
    const later = await clock({ advance_by: "PT2H" })
    expect(later.body.frozen_at).toBe("2030-03-21T14:00:00.000Z")
  })

  it("advancing past valid_until expires a sent quote", async () => {
    const { client, clock } = await tenant(server())
    expect((await clock({ frozen_at: FROZEN })).status).toBe(200)
    const quote = await sentQuote(server(), client, "2030-03-15")
    const lasting = await sentQuote(server(), client, "2030-04-30")

    expect((await clock({ advance_by: "P5D" })).body.jobs.quotes_expired).toBe(0)
    expect((await client.get(`/quotes/${quote.id}`)).body.status).toBe("sent")

    const moved = await clock({ advance_by: "P1D" })
    expect(moved.body).toMatchObject({ frozen_at: "2030-03-16T12:00:00.000Z", jobs: { quotes_expired: 1 } })
    expect((await client.get(`/quotes/${quote.id}`)).body.status).toBe("expired")
    expect((await client.get(`/quotes/${lasting.id}`)).body.status).toBe("sent")

    // Freezing at a later instant is a move forward too, and runs the jobs.
    const month = await clock({ frozen_at: "2030-05-01T00:00:00.000Z" })
    expect(month.body.jobs.quotes_expired).toBe(1)
    expect((await client.get(`/quotes/${lasting.id}`)).body.status).toBe("expired")
  })

  it("judges ticket SLA breach and task due windows by the business clock", async () => {
    const { client, clock, key, organisation } = await tenant(server())
    expect((await clock({ frozen_at: FROZEN })).status).toBe(200)
    const ticket = await server().run(
      Effect.flatMap(Access.Access, (access) =>
        Effect.flatMap(access.getOrganisation(organisation.id), (org) =>
          Effect.flatMap(Tickets.Tickets, (tickets) =>
            tickets.create(org, { subject: "Help", requester_email: "ann@example.com", priority: "normal" })
          )
        )
      )
    )
    // The 24-hour target counts from the business time the ticket was opened at.
    expect(ticket.sla_due_at).toBe("2030-03-11T12:00:00.000Z")
    expect((await client.get(`/tickets/${ticket.id}`)).body.breached).toBe(false)

    const task = await client.post("/tasks", { title: "Call back", due_at: "2030-03-12T09:00:00.000Z" })
    expect(task.status, task.text).toBe(201)
    const mcp = await mcpClient(server(), key)
    const overdue = async () => {
      const outcome = await callTool(mcp, "list_tasks", { due: "overdue" })
      expect(outcome.isError, JSON.stringify(outcome.value)).toBe(false)
      return outcome.value.items.map((item: any) => item.title)
    }
    const dueToday = async () =>
      (await callTool(mcp, "list_tasks", { due: "today" })).value.items.map((item: any) => item.title)
    try {
      // Real time is years before the due time: not overdue, and not due "today" (2030-03-10).
      expect(await overdue()).toEqual([])
      expect(await dueToday()).toEqual([])

      expect((await clock({ advance_by: "P1DT12H" })).status).toBe(200)
      expect(await dueToday()).toEqual(["Call back"])
      expect(await overdue()).toEqual([])
      expect((await client.get(`/tickets/${ticket.id}`)).body.breached).toBe(true)
      expect((await client.get("/tickets?breached=true")).body.data.map((row: any) => row.id)).toEqual([ticket.id])

      expect((await clock({ advance_by: "P1D" })).status).toBe(200)
      expect(await overdue()).toEqual(["Call back"])
    } finally {
      await mcp.close()
    }
  })

  it("returns to real time on DELETE, and the organisation stays in test mode", () =>
    onOneDay("UTC", async (today) => {
      const { client, organisation } = await tenant(server())
      const admin = server().admin
      expect((await admin.post(`/organisations/${organisation.id}/clock`, { frozen_at: FROZEN })).status).toBe(200)
      expect((await client.post("/invoices", { items: [WORK] })).body.issue_date).toBe("2030-03-10")

      const reset = await admin.delete(`/organisations/${organisation.id}/clock`)
      expect(reset.status, reset.text).toBe(200)
      expect(reset.body).toMatchObject({ organisation_id: organisation.id, test_mode: true, frozen_at: null })
      expect(Math.abs(Date.parse(reset.body.now) - Date.now())).toBeLessThan(60_000)
      expect((await client.post("/invoices", { items: [WORK] })).body.issue_date).toBe(today)
      expect((await client.get("/me")).body.key.test_mode).toBe(true)
      expect((await admin.get(`/organisations/${organisation.id}`)).body.test_clock).toEqual({ frozen_at: null })

      // From real time, the clock may be frozen anywhere again, even in the past.
      const past = await admin.post(`/organisations/${organisation.id}/clock`, { frozen_at: "2020-01-01T00:00:00Z" })
      expect(past.status, past.text).toBe(200)
      expect(past.body.frozen_at).toBe("2020-01-01T00:00:00.000Z")
    }))

  it("refuses a live organisation, an unknown one, a move backwards and a malformed body", async () => {
    const live = await tenant(server(), false)
    const refused = await live.clock({ advance_by: "P3D" })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toBe("not_test_mode")
    expect((await server().admin.delete(`/organisations/${live.organisation.id}/clock`)).status).toBe(409)
    expect(
      (await server().admin.post(`/organisations/${crypto.randomUUID()}/clock`, { advance_by: "P1D" })).status
    ).toBe(404)

    const { clock } = await tenant(server())
    expect((await clock({ frozen_at: FROZEN })).status).toBe(200)
    const backwards = await clock({ frozen_at: "2030-03-09T00:00:00.000Z" })
    expect(backwards.status).toBe(422)
    expect(backwards.body.error).toBe("validation_failed")
    expect(backwards.body.detail[0].path).toBe("frozen_at")
    expect((await clock({ frozen_at: FROZEN })).body.frozen_at).toBe(FROZEN)

    for (const body of [{}, { frozen_at: FROZEN, advance_by: "P1D" }, { advance_by: 3 }, { frozen_at: "soon" }]) {
      const bad = await clock(body)
      expect(bad.status, JSON.stringify(body)).toBe(422)
      expect(bad.body.error).toBe("validation_failed")
    }
    for (const advance_by of ["3 days", "P", "-P1D", "P200Y"]) {
      const bad = await clock({ advance_by })
      expect(bad.status, advance_by).toBe(422)
      expect(bad.body.detail[0].path).toBe("advance_by")
    }
    expect((await clock({ advance_by: "P1D" })).body.frozen_at).toBe("2030-03-11T12:00:00.000Z")
  })

  it("keeps keys, the rate window and idempotency on real time", async () => {
    const { clock, organisation } = await tenant(server())
    // A key expiring in an hour of real time keeps working however far the business clock goes.
    const expiring = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      name: "short",
      scopes: SCOPES,
      expires_at: new Date(Date.now() + 3_600_000).toISOString()
    })
    expect(expiring.status, expiring.text).toBe(201)
    const client = server().as(expiring.body.key)
    const first = await client.post("/contacts", { first_name: "Ann" }, { "idempotency-key": "clock-1" })
    expect(first.status).toBe(201)
    const remaining = Number(first.headers.get("x-ratelimit-remaining"))
    expect(remaining).toBeLessThan(120)

    expect((await clock({ advance_by: "P3D" })).status).toBe(200)
    const after = await client.post("/contacts", { first_name: "Ann" }, { "idempotency-key": "clock-1" })
    // Replayed (the 24-hour window is real time), admitted (the key has not expired), and the
    // request budget has not been refilled by three business days.
    expect(after.status).toBe(201)
    expect(after.body.id).toBe(first.body.id)
    expect(Number(after.headers.get("x-ratelimit-remaining"))).toBeLessThan(remaining)
    expect((await client.get("/me")).status).toBe(200)
  })

  it("leaves other organisations on real time", () =>
    onOneDay("UTC", async (today) => {
      const sandbox = await tenant(server())
      const live = await tenant(server(), false)
      const other = await tenant(server())
      const liveInvoice = await issued(live.client, { due_date: "2030-03-12" })
      const otherInvoice = await issued(other.client, { due_date: "2030-03-12" })
      const liveQuote = await sentQuote(server(), live.client, "2030-03-12")

      expect((await sandbox.clock({ frozen_at: FROZEN })).status).toBe(200)
      expect((await sandbox.clock({ advance_by: "P30D" })).status).toBe(200)

      expect((await live.client.get(`/invoices/${liveInvoice.id}`)).body.status).toBe("issued")
      expect((await other.client.get(`/invoices/${otherInvoice.id}`)).body.status).toBe("issued")
      expect((await live.client.get(`/quotes/${liveQuote.id}`)).body.status).toBe("sent")
      expect((await live.client.post("/invoices", { items: [WORK] })).body.issue_date).toBe(today)
      expect((await other.client.post("/invoices", { items: [WORK] })).body.issue_date).toBe(today)
      expect((await server().admin.get(`/organisations/${other.organisation.id}`)).body.test_clock).toEqual({
        frozen_at: null
      })
    }))
})
