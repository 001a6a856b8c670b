/**
 * Invoices over HTTP, written from the contract (spec: Invoice, invoice states, invoices endpoints,
 * events, errors, idempotency) and the decisions page (InvoiceCreate, PaymentCreate, numbers, storno,
 * exchange rates, VAT exemption).
 */
import { expect, it } from "vitest"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"
import { onOneDay, todayIn } from "../support/today.js"

const SCOPES = ["read", "write", "quotes:write", "invoices:write"]
const DAY_MS = 86_400_000

const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10)

/** UTC+14: its "today" is tomorrow for most of the UTC day, so a server that dates in UTC is caught. */
const ZONE = "Pacific/Kiritimati"
const SETTINGS = { default_currency: "EUR", timezone: ZONE, payment_terms_days: 10, country: "CZ" }

/** 100 net at 21 %: total 121. */
const WORK = { name: "Work", quantity: 1, unit_price: 100, vat_rate: 21 }

const events = async (client: Client, name?: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0${name === undefined ? "" : `&event=${name}`}`)
  expect(page.status).toBe(200)
  return page.body.data
}

const paths = (response: { body: any }): Array<string> => response.body.detail.map((issue: any) => issue.path).sort()

const tenant = (server: () => any, settings: Record<string, unknown> = SETTINGS) =>
  server().tenant({ settings, scopes: SCOPES }) as Promise<{ organisation: any; key: string; client: Client }>

const draft = async (client: Client, body: Record<string, unknown> = {}) => {
  const created = await client.post("/invoices", { items: [WORK], ...body })
  expect(created.status, created.text).toBe(201)
  return created.body
}

const issued = async (client: Client, body: Record<string, unknown> = {}) => {
  const invoice = await draft(client, body)
  const done = await client.post(`/invoices/${invoice.id}/issue`)
  expect(done.status, done.text).toBe(200)
  return done.body
}

const expectNotIssuable = (response: { status: number; body: any }, reason: string) => {
  expect(response.status).toBe(422)
  expect(response.body.error).toBe("not_issuable")
  expect(JSON.stringify(response.body.detail)).toContain(reason)
}

/** ECB history CSV (`Date,USD,...` then `YYYY-MM-DD,1.0543,...`, lines ending with a comma). */
const ecbHistory = (codes: ReadonlyArray<string>, rows: ReadonlyArray<[string, ...Array<string>]>) =>
  [`Date,${codes.join(",")},`, ...rows.map((row) => `${row.join(",")},`)].join("\n")

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December"
]
/** ECB daily CSV: `Date, CHF, ` then `23 November 2026, 0.9393, `. */
const ecbDaily = (date: string, rates: Record<string, string>) => {
  const [y, m, d] = date.split("-").map(Number)
  const codes = Object.keys(rates)
  return `Date, ${codes.join(", ")}, \n${d} ${MONTHS[m! - 1]} ${y}, ${codes.map((c) => rates[c]).join(", ")}, \n`
}

onEveryStore("invoices", (server) => {
  it("creates an unnumbered draft dated today in the organisation's time zone, due after its payment terms", () =>
    onOneDay(ZONE, async (today) => {
      const { client } = await tenant(server)
      const created = await client.post("/invoices", {
        items: [WORK, { name: "Consulting", quantity: 3, unit_price: 33.33, vat_rate: 21 }],
        note: "Thank you"
      })
      expect(created.status).toBe(201)
      expect("number" in created.body).toBe(false)
      expect(created.body).toMatchObject({
        kind: "normal",
        status: "draft",
        issue_date: today,
        due_date: addDays(today, 10),
        fulfilment_date: today,
        currency: "EUR",
        contact_id: null,
        company_id: null,
        paid_amount: 0,
        subtotal: 199.99,
        vat_total: 42,
        total: 241.99,
        note: "Thank you"
      })
      expect(created.body.items[1]).toMatchObject({ net: 99.99, vat: 21, gross: 120.99 })
      const read = await client.get(`/invoices/${created.body.id}`)
      expect(read.body).toEqual(created.body)
      expect("number" in read.body).toBe(false)
      const list = await client.get("/invoices")
      expect(list.body.data).toHaveLength(1)
      expect("number" in list.body.data[0]).toBe(false)

      const dated = await draft(client, { issue_date: "2026-02-20" })
      expect(dated).toMatchObject({ issue_date: "2026-02-20", due_date: "2026-03-02", fulfilment_date: "2026-02-20" })
      const explicit = await draft(client, {
        kind: "proforma",
        currency: "USD",
        issue_date: "2026-01-10",
        due_date: "2026-01-31",
        fulfilment_date: "2026-01-05"
      })
      expect(explicit).toMatchObject({
        kind: "proforma",
        currency: "USD",
        issue_date: "2026-01-10",
        due_date: "2026-01-31",
        fulfilment_date: "2026-01-05"
      })

      const storno = await client.post("/invoices", { kind: "storno", items: [WORK] })
      expect(storno.status).toBe(422)
      expect(storno.body.error).toBe("validation_failed")
      expect(paths(storno)).toContain("kind")
      const unknown = await client.post("/invoices", { items: [WORK], number: "2026-000999" })
      expect(unknown.status).toBe(422)
      expect((await client.get("/invoices")).body.data).toHaveLength(3)
    }))

  it("freezes the buyer: later edits of the company leave the invoice alone; a contact alone gives name and email", async () => {
    const { client } = await tenant(server)
    const company = await client.post("/companies", {
      name: "Acme s.r.o.",
      email: "billing@acme.test",
      vat_number: "CZ12345678",
      city: "Brno",
      country: "CZ"
    })
    const contact = await client.post("/contacts", {
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com"
    })
    const invoice = await draft(client, { company_id: company.body.id, contact_id: contact.body.id })
    const frozen = {
      name: "Acme s.r.o.",
      email: "billing@acme.test",
      vat_number: "CZ12345678",
      city: "Brno",
      country: "CZ"
    }
    expect(invoice.buyer).toMatchObject(frozen)

    const renamed = await client.patch(`/companies/${company.body.id}`, {
      name: "Renamed a.s.",
      email: "new@acme.test",
      vat_number: "CZ87654321",
      city: "Praha"
    })
    expect(renamed.status).toBe(200)
    expect((await client.get(`/invoices/${invoice.id}`)).body.buyer).toMatchObject(frozen)

    const personal = await draft(client, { contact_id: contact.body.id })
    expect(personal.buyer).toMatchObject({
      name: "Ada Lovelace",
      email: "ada@example.com",
      vat_number: null,
      city: null,
      country: null
    })
    await client.patch(`/contacts/${contact.body.id}`, { last_name: "King", email: "ada@king.test" })
    expect((await client.get(`/invoices/${personal.id}`)).body.buyer).toMatchObject({
      name: "Ada Lovelace",
      email: "ada@example.com"
    })

    const foreign = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
    const foreignCompany = await foreign.client.post("/companies", { name: "Elsewhere" })
    const refused = await client.post("/invoices", { items: [WORK], company_id: foreignCompany.body.id })
    expect(refused.status).toBe(422)
    expect(paths(refused)).toEqual(["company_id"])
  })

  it("zero-rates an exempt buyer or an EU business buyer in another member state and fills vat_reason", async () => {
    const { client } = await tenant(server)
    const company = async (body: Record<string, unknown>) => (await client.post("/companies", body)).body.id
    const exempt = await company({ name: "Charity", country: "CZ", custom: { vat_exempt: true } })
    const german = await company({ name: "GmbH", country: "DE", vat_number: "DE123456789" })
    const domestic = await company({ name: "Domestic", country: "CZ", vat_number: "CZ12345678" })
    const germanConsumer = await company({ name: "No VAT number", country: "DE" })
    const american = await company({ name: "Inc", country: "US", vat_number: "US-123" })

    for (const companyId of [exempt, german]) {
      const invoice = await draft(client, { company_id: companyId })
      expect(invoice.items[0], companyId).toMatchObject({ vat_rate: 0, net: 100, vat: 0, gross: 100 })
      expect(invoice).toMatchObject({ subtotal: 100, vat_total: 0, total: 100 })
      expect(typeof invoice.vat_reason).toBe("string")
      expect(invoice.vat_reason.trim()).not.toBe("")
      // The filled reason makes the zero-rated invoice issuable.
      const done = await client.post(`/invoices/${invoice.id}/issue`)
      expect(done.status, done.text).toBe(200)
      expect(done.body.total).toBe(100)
    }

    const ownReason = await draft(client, { company_id: german, vat_reason: "Reverse charge, §92a" })
    expect(ownReason.vat_reason).toBe("Reverse charge, §92a")

    for (const companyId of [domestic, germanConsumer, american]) {
      const invoice = await draft(client, { company_id: companyId })
      expect(invoice.items[0], companyId).toMatchObject({ vat_rate: 21, net: 100, vat: 21, gross: 121 })
      expect(invoice.total).toBe(121)
      expect(invoice.vat_reason).toBeNull()
    }
  })

  it("PATCHes only a draft: omitted fields kept, items replace every line", async () => {
    const { client } = await tenant(server)
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const invoice = await draft(client, {
      contact_id: contact.body.id,
      due_date: "2030-01-31",
      note: "first",
      items: [WORK, { name: "Second", quantity: 2, unit_price: 10, vat_rate: 12 }]
    })
    expect(invoice.total).toBe(143.4)

    const noted = await client.patch(`/invoices/${invoice.id}`, { note: "second" })
    expect(noted.status).toBe(200)
    expect(noted.body).toMatchObject({
      note: "second",
      contact_id: contact.body.id,
      due_date: "2030-01-31",
      issue_date: invoice.issue_date,
      items: invoice.items,
      total: 143.4,
      status: "draft"
    })
    expect("number" in noted.body).toBe(false)

    const replaced = await client.patch(`/invoices/${invoice.id}`, {
      items: [{ name: "Only", quantity: 5, unit_price: 2, vat_rate: 10 }]
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.items).toHaveLength(1)
    expect(replaced.body.items[0]).toMatchObject({ name: "Only", net: 10, vat: 1, gross: 11 })
    expect(replaced.body).toMatchObject({
      subtotal: 10,
      vat_total: 1,
      total: 11,
      note: "second",
      due_date: "2030-01-31"
    })
    expect((await client.get(`/invoices/${invoice.id}`)).body).toEqual(replaced.body)

    expect((await client.patch(`/invoices/${invoice.id}`, {})).body.error).toBe("no_fields_to_update")
    const unknown = await client.patch(`/invoices/${invoice.id}`, { note: "x", status: "paid" })
    expect(unknown.status).toBe(422)
    expect(unknown.body.error).toBe("validation_failed")

    expect((await client.post(`/invoices/${invoice.id}/issue`)).status).toBe(200)
    const late = await client.patch(`/invoices/${invoice.id}`, { note: "too late" })
    expect(late.status).toBe(409)
    expect(late.body.error).toBe("not_draft")
    const lateItems = await client.patch(`/invoices/${invoice.id}`, { items: [WORK] })
    expect(lateItems.status).toBe(409)
    expect((await client.get(`/invoices/${invoice.id}`)).body).toMatchObject({ note: "second", total: 11 })
  })

  it("issues with the next number of the kind's series for the issue year and emits invoice.issued", () =>
    onOneDay(ZONE, async (today) => {
      const { client } = await tenant(server)
      const year = today.slice(0, 4)
      const contact = await client.post("/contacts", { first_name: "Ada" })
      const company = await client.post("/companies", { name: "Acme", country: "CZ" })

      const first = await draft(client, { contact_id: contact.body.id, company_id: company.body.id })
      const done = await client.post(`/invoices/${first.id}/issue`)
      expect(done.status).toBe(200)
      expect(done.body).toMatchObject({
        id: first.id,
        number: `${year}-000001`,
        status: "issued",
        kind: "normal",
        issue_date: today,
        total: 121
      })
      expect((await client.get(`/invoices/${first.id}`)).body).toEqual(done.body)

      const second = await issued(client)
      expect(second.number).toBe(`${year}-000002`)
      // The year is the issue date's: an invoice dated in another year counts in that year's series.
      const lastYear = await issued(client, { issue_date: "2025-12-30" })
      expect(lastYear.number).toBe("2025-000001")
      const advance = await issued(client, { kind: "advance" })
      expect(advance.number).toBe(`ZF${year}-0001`)
      expect((await issued(client)).number).toBe(`${year}-000003`)

      const again = await client.post(`/invoices/${first.id}/issue`)
      expect(again.status).toBe(409)
      expect(again.body.error).toBe("not_draft")
      expect((await client.get(`/invoices/${first.id}`)).body.number).toBe(`${year}-000001`)
      expect((await client.post(`/invoices/${crypto.randomUUID()}/issue`)).status).toBe(404)

      const emitted = await events(client, "invoice.issued")
      expect(emitted).toHaveLength(5)
      for (const event of emitted) {
        expect(Object.keys(event.data).sort()).toEqual([
          "company_id",
          "contact_id",
          "currency",
          "due_date",
          "id",
          "issue_date",
          "kind",
          "number",
          "total"
        ])
      }
      expect(emitted[0].data).toEqual({
        id: first.id,
        number: `${year}-000001`,
        kind: "normal",
        issue_date: today,
        due_date: addDays(today, 10),
        total: 121,
        currency: "EUR",
        contact_id: contact.body.id,
        company_id: company.body.id
      })
      expect(emitted[1].data).toMatchObject({ id: second.id, company_id: null, contact_id: null })
      expect(emitted.map((e) => e.data.number)).toEqual([
        `${year}-000001`,
        `${year}-000002`,
        "2025-000001",
        `ZF${year}-0001`,
        `${year}-000003`
      ])
    }))

  it("gives ten concurrent issues ten distinct consecutive numbers", () =>
    onOneDay(ZONE, async (today) => {
      const { client } = await tenant(server)
      const year = today.slice(0, 4)
      const drafts = []
      for (let i = 0; i < 10; i++) drafts.push(await draft(client))
      const answers = await Promise.all(drafts.map((d) => client.post(`/invoices/${d.id}/issue`)))
      for (const answer of answers) expect(answer.status, answer.text).toBe(200)
      const numbers = answers.map((a) => a.body.number).sort()
      expect(numbers).toEqual(Array.from({ length: 10 }, (_, i) => `${year}-${String(i + 1).padStart(6, "0")}`))
      expect(await events(client, "invoice.issued")).toHaveLength(10)
    }))

  it("accepts a zero-rate line without vat_reason on the draft and refuses the issue without using a number", () =>
    onOneDay(ZONE, async (today) => {
      const { client } = await tenant(server)
      const year = today.slice(0, 4)
      const bad = await draft(client, { items: [WORK, { name: "Exempt", quantity: 1, unit_price: 50, vat_rate: 0 }] })
      expect(bad.status).toBe("draft")
      const refused = await client.post(`/invoices/${bad.id}/issue`)
      expectNotIssuable(refused, "VAT_REASON_REQUIRED")
      const still = (await client.get(`/invoices/${bad.id}`)).body
      expect(still.status).toBe("draft")
      expect("number" in still).toBe(false)
      expect(await events(client, "invoice.issued")).toEqual([])

      expect((await issued(client)).number).toBe(`${year}-000001`)
      const fixed = await client.patch(`/invoices/${bad.id}`, { vat_reason: "Exempt supply" })
      expect(fixed.status).toBe(200)
      const done = await client.post(`/invoices/${bad.id}/issue`)
      expect(done.status).toBe(200)
      expect(done.body.number).toBe(`${year}-000002`)
    }))

  // Exchange rates are shared by every organisation of a server: each test below uses its own currencies,
  // and this one, which needs none stored for USD, runs before any import.
  it("refuses a foreign-currency issue without a rate (RATE_REQUIRED) and takes one from the issue body", () =>
    onOneDay(ZONE, async (today) => {
      const { client } = await tenant(server)
      const year = today.slice(0, 4)
      const usd = await draft(client, { currency: "USD" })
      expectNotIssuable(await client.post(`/invoices/${usd.id}/issue`), "RATE_REQUIRED")
      expect((await client.get(`/invoices/${usd.id}`)).body.status).toBe("draft")
      const emptyBody = await client.post(`/invoices/${usd.id}/issue`, {})
      expectNotIssuable(emptyBody, "RATE_REQUIRED")

      const badRate = await client.post(`/invoices/${usd.id}/issue`, { exchange_rate: -1 })
      expect(badRate.status).toBe(422)
      expect(badRate.body.error).toBe("validation_failed")

      const done = await client.post(`/invoices/${usd.id}/issue`, { exchange_rate: 0.92 })
      expect(done.status).toBe(200)
      expect(done.body).toMatchObject({
        status: "issued",
        currency: "USD",
        exchange_rate: 0.92,
        number: `${year}-000001`
      })
      expect((await client.get(`/invoices/${usd.id}`)).body.exchange_rate).toBe(0.92)
    }))

  it("uses the ECB rate last published on or before the fulfilment date, at most 7 days older, inverted for a EUR organisation", async () => {
    const { client } = await tenant(server)
    const today = todayIn(ZONE)
    const at = (days: number) => addDays(today, days)
    const imported = await server().admin.post("/exchange-rates", {
      format: "ecb",
      text: ecbHistory(
        ["USD", "GBP"],
        [
          [at(-2), "1.0543", "N/A"],
          [at(-5), "1.0400", ""],
          [at(-20), "", "0.84280"]
        ]
      )
    })
    expect(imported.status).toBe(200)
    expect(imported.body).toEqual({ imported: 3 })

    const issueOn = async (currency: string, fulfilment: string) => {
      const invoice = await draft(client, { currency, fulfilment_date: fulfilment })
      return client.post(`/invoices/${invoice.id}/issue`)
    }
    // 1 / 1.0543 = 0.9484966..., 1 / 1.04 = 0.9615384..., 1 / 0.8428 = 1.1865211...
    const yesterday = await issueOn("USD", at(-1))
    expect(yesterday.status).toBe(200)
    expect(yesterday.body.exchange_rate).toBe(0.948497)
    const onPublication = await issueOn("USD", at(-2))
    expect(onPublication.body.exchange_rate).toBe(0.948497)
    const earlier = await issueOn("USD", at(-3))
    expect(earlier.status).toBe(200)
    expect(earlier.body.exchange_rate).toBe(0.961538)
    const sevenDaysOld = await issueOn("GBP", at(-13))
    expect(sevenDaysOld.status).toBe(200)
    expect(sevenDaysOld.body.exchange_rate).toBe(1.186521)
    expectNotIssuable(await issueOn("GBP", at(-12)), "RATE_REQUIRED")
    expectNotIssuable(await issueOn("GBP", at(-10)), "RATE_REQUIRED")
    // Before any publication there is no rate at all.
    expectNotIssuable(await issueOn("USD", at(-30)), "RATE_REQUIRED")
    // A rate sent with the issue wins over the published one.
    const invoice = await draft(client, { currency: "USD", fulfilment_date: at(-1) })
    const given = await client.post(`/invoices/${invoice.id}/issue`, { exchange_rate: 0.9 })
    expect(given.body.exchange_rate).toBe(0.9)
  })

  it("has no rate yet for a fulfilment date in the future", () =>
    onOneDay(ZONE, async (today) => {
      const { client } = await tenant(server)
      const imported = await server().admin.post("/exchange-rates", {
        format: "ecb",
        text: ecbDaily(today, { CHF: "0.9393", SEK: "11.4120" })
      })
      expect(imported.status).toBe(200)
      expect(imported.body).toEqual({ imported: 2 })

      const todays = await draft(client, { currency: "CHF" })
      const done = await client.post(`/invoices/${todays.id}/issue`)
      expect(done.status).toBe(200)
      expect(done.body.exchange_rate).toBe(1.064623)

      const tomorrow = await draft(client, { currency: "CHF", fulfilment_date: addDays(today, 1) })
      expectNotIssuable(await client.post(`/invoices/${tomorrow.id}/issue`), "RATE_REQUIRED")
      const nextWeek = await draft(client, { currency: "CHF", fulfilment_date: addDays(today, 5) })
      expectNotIssuable(await client.post(`/invoices/${nextWeek.id}/issue`), "RATE_REQUIRED")
    }))

  it("uses the CNB rate directly for a CZK organisation, per unit", async () => {
    const { client } = await tenant(server, { default_currency: "CZK", timezone: "Europe/Prague", country: "CZ" })
    // Published today; the issue (tomorrow, should midnight pass first) takes it as the latest.
    const [y, m, d] = todayIn("Europe/Prague").split("-")
    const text = [
      `${d}.${m}.${y} #226`,
      "země|měna|množství|kód|kurz",
      "EMU|euro|1|EUR|24,335",
      "Japonsko|jen|100|JPY|15,432",
      "Polsko|zlotý|1|PLN|5,734"
    ].join("\n")
    const imported = await server().admin.post("/exchange-rates", { format: "cnb", text })
    expect(imported.status).toBe(200)
    expect(imported.body).toEqual({ imported: 3 })

    const eur = await draft(client, { currency: "EUR" })
    const done = await client.post(`/invoices/${eur.id}/issue`)
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ currency: "EUR", exchange_rate: 24.335, status: "issued" })
    const jpy = await draft(client, {
      currency: "JPY",
      items: [{ name: "Yen", quantity: 1, unit_price: 1000, vat_rate: 21 }]
    })
    expect(jpy.total).toBe(1210)
    const yen = await client.post(`/invoices/${jpy.id}/issue`)
    expect(yen.status).toBe(200)
    expect(yen.body.exchange_rate).toBe(0.15432)
    const domestic = await issued(client)
    expect(domestic.currency).toBe("CZK")
  })

  it("refuses rate texts it cannot parse", async () => {
    const admin = server().admin
    for (const body of [
      { format: "ecb", text: "this is not a CSV" },
      { format: "ecb", text: "Date, USD, \nyesterday, 1.05, \n" },
      { format: "cnb", text: "Date, USD, \n2026-11-20, 1.05, \n" },
      { format: "cnb", text: "23.11.2026 #226\nzemě|měna|množství|kód|kurz\nEMU|euro|1|EUR|abc" },
      { format: "swift", text: "Date, USD, \n20 November 2026, 1.05, \n" }
    ]) {
      const refused = await admin.post("/exchange-rates", body)
      expect(refused.status, JSON.stringify(body)).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
    }
  })

  it("records payments: partial, then paid with exactly one invoice.paid; refuses too much, too fine and drafts", () =>
    onOneDay(ZONE, async (today) => {
      const { client } = await tenant(server)
      const contact = await client.post("/contacts", { first_name: "Ada" })
      const invoice = await draft(client, { contact_id: contact.body.id })
      const onDraft = await client.post(`/invoices/${invoice.id}/payments`, { amount: 10 })
      expect(onDraft.status).toBe(409)
      expect(onDraft.body.error).toBe("not_payable")
      const number = (await client.post(`/invoices/${invoice.id}/issue`)).body.number

      const first = await client.post(`/invoices/${invoice.id}/payments`, {
        amount: 21.5,
        paid_on: "2026-11-20",
        method: "transfer",
        reference: "VS-1"
      })
      expect(first.status).toBe(201)
      expect(first.body).toMatchObject({
        invoice_id: invoice.id,
        amount: 21.5,
        paid_on: "2026-11-20",
        method: "transfer",
        reference: "VS-1"
      })
      expect(first.body.id).toMatch(/^[0-9a-f-]{36}$/)
      expect((await client.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: "partial", paid_amount: 21.5 })

      for (const amount of [99.51, 1000, 10.005, 0, -5]) {
        const refused = await client.post(`/invoices/${invoice.id}/payments`, { amount })
        expect(refused.status, String(amount)).toBe(422)
        expect(refused.body.error).toBe("validation_failed")
        expect(paths(refused)).toContain("amount")
      }
      expect((await client.post(`/invoices/${invoice.id}/payments`, { amount: 5, colour: "red" })).status).toBe(422)
      expect(await events(client, "invoice.paid")).toEqual([])

      const rest = await client.post(`/invoices/${invoice.id}/payments`, { amount: 99.5 })
      expect(rest.status).toBe(201)
      expect(rest.body).toMatchObject({ amount: 99.5, paid_on: today, method: null, reference: null })
      expect((await client.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: "paid", paid_amount: 121 })

      const paid = await events(client, "invoice.paid")
      expect(paid).toHaveLength(1)
      expect(paid[0].data).toEqual({
        id: invoice.id,
        number,
        total: 121,
        paid_amount: 121,
        currency: "EUR",
        contact_id: contact.body.id
      })

      const listed = await client.get(`/invoices/${invoice.id}/payments`)
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((p: any) => p.id)).toEqual([first.body.id, rest.body.id])
      expect(listed.body.data.map((p: any) => p.amount)).toEqual([21.5, 99.5])
      expect((await client.get(`/invoices/${crypto.randomUUID()}/payments`)).status).toBe(404)
      expect((await client.post(`/invoices/${crypto.randomUUID()}/payments`, { amount: 1 })).status).toBe(404)

      // Minor units follow the invoice's currency: JPY has none.
      const yen = await draft(client, { currency: "JPY" })
      expect((await client.post(`/invoices/${yen.id}/issue`, { exchange_rate: 0.0061 })).status).toBe(200)
      expect((await client.post(`/invoices/${yen.id}/payments`, { amount: 0.5 })).status).toBe(422)
      expect((await client.post(`/invoices/${yen.id}/payments`, { amount: 100 })).status).toBe(201)
    }))

  it("counts a payment repeated concurrently with one Idempotency-Key once", async () => {
    const { client } = await tenant(server)
    const invoice = await issued(client)
    const headers = { "idempotency-key": "pay-invoice-1" }
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => client.post(`/invoices/${invoice.id}/payments`, { amount: 21 }, headers))
    )
    const created = answers.filter((a) => a.status === 201)
    for (const answer of answers) {
      if (answer.status === 409) expect(answer.body.error).toBe("idempotency_in_progress")
      else expect(answer.status).toBe(201)
    }
    expect(created.length).toBeGreaterThanOrEqual(1)
    expect(created.filter((a) => a.headers.get("idempotency-replayed") !== "true")).toHaveLength(1)
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1)

    const replay = await client.post(`/invoices/${invoice.id}/payments`, { amount: 21 }, headers)
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotency-replayed")).toBe("true")
    expect(replay.body.id).toBe(created[0]!.body.id)

    expect((await client.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: "partial", paid_amount: 21 })
    expect((await client.get(`/invoices/${invoice.id}/payments`)).body.data).toHaveLength(1)
  })

  it("lets only one of two concurrent payments through when together they exceed the outstanding amount", async () => {
    const { client } = await tenant(server)
    // Several invoices, each paid twice at once, so that the pairs really overlap on a store with many connections.
    const invoices = []
    for (let i = 0; i < 4; i++) invoices.push(await issued(client))
    const pairs = await Promise.all(
      invoices.map((invoice) =>
        Promise.all([
          client.post(`/invoices/${invoice.id}/payments`, { amount: 70 }),
          client.post(`/invoices/${invoice.id}/payments`, { amount: 70 })
        ])
      )
    )
    for (const [i, answers] of pairs.entries()) {
      const invoice = invoices[i]!
      expect(answers.map((a) => a.status).sort()).toEqual([201, 422])
      expect(answers.find((a) => a.status === 422)!.body.error).toBe("validation_failed")
      const after = (await client.get(`/invoices/${invoice.id}`)).body
      expect(after).toMatchObject({ status: "partial", paid_amount: 70 })
      expect(after.paid_amount).toBeLessThanOrEqual(after.total)
      expect((await client.get(`/invoices/${invoice.id}/payments`)).body.data).toHaveLength(1)
    }
  })

  it("reverses an unpaid issued invoice with a storno; cancels drafts only", () =>
    onOneDay(ZONE, async (today) => {
      const { client } = await tenant(server)
      const admin = server().admin
      const year = today.slice(0, 4)
      const contact = await client.post("/contacts", { first_name: "Ada" })
      const original = await issued(client, {
        contact_id: contact.body.id,
        items: [
          { name: "Consulting", quantity: 3, unit_price: 33.33, vat_rate: 21, discount_percent: 10 },
          // VAT 0.005 rounds to 0.01; negated, -0.005 must round to -0.01 (half away from zero).
          { name: "Fee", quantity: 1, unit_price: 0.05, vat_rate: 10 }
        ]
      })
      expect(original).toMatchObject({ subtotal: 90.04, vat_total: 18.91, total: 108.95 })

      const reversed = await admin.post(`/invoices/${original.id}/storno`)
      expect(reversed.status).toBe(201)
      const storno = reversed.body
      expect(storno).toMatchObject({
        kind: "storno",
        number: `DD${year}-0001`,
        original_invoice_id: original.id,
        currency: "EUR",
        contact_id: contact.body.id,
        subtotal: -90.04,
        vat_total: -18.91,
        total: -original.total
      })
      expect(storno.id).not.toBe(original.id)
      expect(storno.total).toBe(-108.95)
      expect(storno.items.map((l: any) => l.quantity)).toEqual([-3, -1])
      expect(storno.items.map((l: any) => [l.net, l.vat, l.gross])).toEqual(
        original.items.map((l: any) => [-l.net, -l.vat, -l.gross])
      )
      expect((await client.get(`/invoices/${storno.id}`)).body).toEqual(storno)
      expect((await client.get(`/invoices/${original.id}`)).body).toMatchObject({
        status: "cancelled",
        storno_invoice_id: storno.id,
        number: original.number,
        total: 108.95
      })

      const issuedEvents = await events(client, "invoice.issued")
      expect(issuedEvents.map((e) => e.data.id)).toEqual([original.id, storno.id])
      expect(issuedEvents[1].data).toMatchObject({ kind: "storno", number: `DD${year}-0001`, total: -108.95 })

      for (const id of [storno.id, original.id]) {
        const refused = await client.post(`/invoices/${id}/payments`, { amount: 1 })
        expect(refused.status).toBe(409)
        expect(refused.body.error).toBe("not_payable")
      }
      for (const id of [storno.id, original.id]) {
        const again = await admin.post(`/invoices/${id}/storno`)
        expect(again.status).toBe(409)
        expect(again.body.error).toBe("transition_not_allowed")
      }

      const second = await issued(client)
      expect((await admin.post(`/invoices/${second.id}/storno`)).body.number).toBe(`DD${year}-0002`)

      const partly = await issued(client)
      expect((await client.post(`/invoices/${partly.id}/payments`, { amount: 1 })).status).toBe(201)
      const refusedPaid = await admin.post(`/invoices/${partly.id}/storno`)
      expect(refusedPaid.status).toBe(409)
      expect(refusedPaid.body.error).toBe("transition_not_allowed")
      expect((await client.get(`/invoices/${partly.id}`)).body.status).toBe("partial")

      const unissued = await draft(client)
      expect((await admin.post(`/invoices/${unissued.id}/storno`)).status).toBe(409)
      const cancelled = await admin.post(`/invoices/${unissued.id}/cancel`)
      expect(cancelled.status).toBe(200)
      expect(cancelled.body.status).toBe("cancelled")
      expect((await client.get(`/invoices/${unissued.id}`)).body.status).toBe("cancelled")
      const payCancelled = await client.post(`/invoices/${unissued.id}/payments`, { amount: 1 })
      expect(payCancelled.status).toBe(409)
      expect(payCancelled.body.error).toBe("not_payable")
      expect((await client.post(`/invoices/${unissued.id}/issue`)).body.error).toBe("not_draft")

      const live = await issued(client)
      const cancelIssued = await admin.post(`/invoices/${live.id}/cancel`)
      expect(cancelIssued.status).toBe(409)
      expect(cancelIssued.body.error).toBe("transition_not_allowed")
      expect((await client.get(`/invoices/${live.id}`)).body.status).toBe("issued")

      for (const action of ["cancel", "storno"]) {
        const missing = await admin.post(`/invoices/${crypto.randomUUID()}/${action}`)
        expect(missing.status).toBe(404)
        expect(missing.body.error).toBe("not_found")
      }
    }))

  it("filters by status, kind, contact and company, refuses unknown values, and keeps organisations apart", async () => {
    const { client } = await tenant(server)
    const ada = await client.post("/contacts", { first_name: "Ada" })
    const bob = await client.post("/contacts", { first_name: "Bob" })
    const acme = await client.post("/companies", { name: "Acme", country: "CZ" })
    const a = await draft(client, { contact_id: ada.body.id, company_id: acme.body.id })
    const b = await issued(client, { contact_id: bob.body.id })
    const c = await draft(client, { kind: "advance", contact_id: ada.body.id })
    const d = await issued(client)
    expect((await client.post(`/invoices/${d.id}/payments`, { amount: 121 })).status).toBe(201)

    const ids = async (query: string) => {
      const page = await client.get(`/invoices${query}`)
      expect(page.status, query).toBe(200)
      return page.body.data.map((i: any) => i.id).sort()
    }
    const sorted = (...list: Array<any>) => list.map((i) => i.id).sort()
    expect(await ids("")).toEqual(sorted(a, b, c, d))
    expect(await ids("?status=draft")).toEqual(sorted(a, c))
    expect(await ids("?status=issued")).toEqual(sorted(b))
    expect(await ids("?status=paid")).toEqual(sorted(d))
    expect(await ids("?status=overdue")).toEqual([])
    expect(await ids("?kind=advance")).toEqual(sorted(c))
    expect(await ids("?kind=normal")).toEqual(sorted(a, b, d))
    expect(await ids(`?contact_id=${ada.body.id}`)).toEqual(sorted(a, c))
    expect(await ids(`?company_id=${acme.body.id}`)).toEqual(sorted(a))
    expect(await ids(`?contact_id=${ada.body.id}&kind=normal`)).toEqual(sorted(a))
    for (const query of ["?status=vip", "?kind=invoice", "?contact_id=nope"]) {
      const bad = await client.get(`/invoices${query}`)
      expect(bad.status, query).toBe(422)
      expect(bad.body.error).toBe("validation_failed")
    }

    const other = await tenant(server)
    expect((await other.client.get("/invoices")).body.data).toEqual([])
    for (const response of [
      await other.client.get(`/invoices/${a.id}`),
      await other.client.patch(`/invoices/${a.id}`, { note: "mine" }),
      await other.client.post(`/invoices/${a.id}/issue`),
      await other.client.post(`/invoices/${b.id}/payments`, { amount: 1 }),
      await other.client.get(`/invoices/${b.id}/payments`)
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
    expect((await client.get(`/invoices/${a.id}`)).body).toMatchObject({ status: "draft", note: null })
    expect((await client.get(`/invoices/${b.id}`)).body.paid_amount).toBe(0)
  })

  it("needs invoices:write to create, change, issue or pay; read is enough to see them", async () => {
    const { client, organisation } = await tenant(server)
    const admin = server().admin
    const keyWith = async (scopes: Array<string>) =>
      server().as((await admin.post(`/organisations/${organisation.id}/keys`, { name: "k", scopes })).body.key)
    const crmOnly = await keyWith(["read", "write"])
    const readOnly = await keyWith(["read"])
    const open = await draft(client)
    const live = await issued(client)

    for (const response of [
      await crmOnly.post("/invoices", { items: [WORK] }),
      await crmOnly.patch(`/invoices/${open.id}`, { note: "x" }),
      await crmOnly.post(`/invoices/${open.id}/issue`),
      await crmOnly.post(`/invoices/${live.id}/payments`, { amount: 1 })
    ]) {
      expect(response.status).toBe(403)
      expect(response.body.error).toBe("missing_scope:invoices:write")
    }
    expect((await client.get(`/invoices/${open.id}`)).body).toMatchObject({ status: "draft", note: null })
    expect((await client.get(`/invoices/${live.id}`)).body.paid_amount).toBe(0)
    expect((await client.get("/invoices")).body.data).toHaveLength(2)

    for (const reader of [readOnly, crmOnly]) {
      expect((await reader.get("/invoices")).status).toBe(200)
      expect((await reader.get(`/invoices/${open.id}`)).status).toBe(200)
      expect((await reader.get(`/invoices/${live.id}/payments`)).status).toBe(200)
    }
    expect((await readOnly.post("/invoices", { items: [WORK] })).body.error).toMatch(/^missing_scope:/)
  })
})
