/**
 * Quotes and invoices as PDFs over HTTP (issue 15): the text poppler extracts from each PDF is
 * checked against the figures the API answers for the same document in JSON, and one PDF is
 * rendered to a PNG (test/artifacts/) to prove it opens.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { checkedFetch } from "../support/responseCheck.js"
import type { TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const hasPoppler =
  spawnSync("pdftotext", ["-v"]).error === undefined && spawnSync("pdftoppm", ["-v"]).error === undefined
const ARTIFACTS = resolve(import.meta.dirname, "..", "artifacts")

const SCOPES = ["read", "write", "quotes:write", "invoices:write"]
const SELLER = {
  legal_name: "Šťastná dílna s.r.o.",
  address: "Vinohradská 1234/56\n120 00 Praha 2",
  registration_number: "27074358",
  vat_number: "CZ27074358",
  email: "fakturace@dilna.example",
  bank_account: "CZ65 0800 0000 1920 0014 5399",
  bic: "GIBACZPX"
}
const SETTINGS = {
  name: "Dílna",
  default_currency: "CZK",
  timezone: "Europe/Prague",
  country: "CZ",
  seller: SELLER
}

/** Amounts as the PDF prints them: grouped thousands, the currency's minor unit. */
const money = (amount: number, decimals = 2) =>
  amount.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals })

interface Pdf {
  readonly status: number
  readonly headers: Headers
  readonly bytes: Buffer
}

const getPdf = async (server: TestServer, key: string, path: string): Promise<Pdf> => {
  const response = await checkedFetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } })
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) }
}

/** The PDF's text as `pdftotext -layout` reads it: one string per printed line. */
const textOf = (bytes: Buffer): Array<string> => {
  const dir = mkdtempSync(join(tmpdir(), "crm-pdf-"))
  try {
    const file = join(dir, "document.pdf")
    writeFileSync(file, bytes)
    return execFileSync("pdftotext", ["-layout", "-enc", "UTF-8", file, "-"], { encoding: "utf8" }).split("\n")
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The printed line holding every one of `parts` (the cells of a table row). */
const lineWith = (lines: ReadonlyArray<string>, ...parts: ReadonlyArray<string>) => {
  const found = lines.find((line) => parts.every((part) => line.includes(part)))
  expect(found, `no line of the PDF holds ${JSON.stringify(parts)}:\n${lines.join("\n")}`).toBeDefined()
  return found!
}

const expectFigures = (lines: ReadonlyArray<string>, document: any) => {
  for (const item of document.items) {
    lineWith(lines, item.name, money(item.net), money(item.vat), money(item.gross), `${item.vat_rate}%`)
  }
  for (const row of document.vat_summary) {
    lineWith(lines, `${row.vat_rate}%`, money(row.net), money(row.vat), money(row.gross))
  }
  lineWith(lines, "Subtotal", `${money(document.subtotal)} ${document.currency}`)
  lineWith(lines, "VAT", `${money(document.vat_total)} ${document.currency}`)
  lineWith(lines, "Total", `${money(document.total)} ${document.currency}`)
}

const expectSeller = (lines: ReadonlyArray<string>) => {
  for (const part of [
    SELLER.legal_name,
    "Vinohradská 1234/56",
    "120 00 Praha 2",
    SELLER.registration_number,
    SELLER.vat_number,
    SELLER.email
  ]) {
    lineWith(lines, part)
  }
}

const tenant = (server: () => TestServer, scopes = SCOPES) => server().tenant({ settings: SETTINGS, scopes })

const buyerCompany = async (client: any, body: Record<string, unknown> = {}) => {
  const company = await client.post("/companies", {
    name: "Žluťoučký kůň a.s.",
    city: "Brno",
    country: "CZ",
    vat_number: "CZ87654321",
    ...body
  })
  expect(company.status, company.text).toBe(201)
  return company.body
}

const issuedInvoice = async (client: any, body: Record<string, unknown>, issue: Record<string, unknown> = {}) => {
  const draft = await client.post("/invoices", body)
  expect(draft.status, draft.text).toBe(201)
  const issued = await client.post(`/invoices/${draft.body.id}/issue`, issue)
  expect(issued.status, issued.text).toBe(200)
  return issued.body
}

onEveryStore("PDF routes: who may read them", (server) => {
  it("answers 404 for another organisation's quote or invoice and for an id that names nothing", async () => {
    const owner = await tenant(server)
    const other = await tenant(server)
    const quote = await owner.client.post("/quotes", {
      items: [{ name: "Work", quantity: 1, unit_price: 10, vat_rate: 21 }]
    })
    const invoice = await owner.client.post("/invoices", {
      items: [{ name: "Work", quantity: 1, unit_price: 10, vat_rate: 21 }]
    })
    for (const path of [`/quotes/${quote.body.id}/pdf`, `/invoices/${invoice.body.id}/pdf`]) {
      const foreign = await other.client.get(path)
      expect(foreign.status).toBe(404)
      expect(foreign.body.error).toBe("not_found")
    }
    for (const path of [`/quotes/${crypto.randomUUID()}/pdf`, `/invoices/${crypto.randomUUID()}/pdf`]) {
      const missing = await owner.client.get(path)
      expect(missing.status).toBe(404)
      expect(missing.body.error).toBe("not_found")
    }
  })

  it("are described in the OpenAPI document as application/pdf files behind the read scope", async () => {
    const document = (await server().anonymous.get("/openapi.json")).body
    for (const path of ["/api/v1/quotes/{id}/pdf", "/api/v1/invoices/{id}/pdf"]) {
      const operation = document.paths[path].get
      expect(operation["x-required-scope"]).toBe("read")
      expect(operation.responses["200"].content).toEqual({
        "application/pdf": { schema: { type: "string", format: "binary" } }
      })
      expect(operation.responses["404"].content["application/json"].schema.properties.error.enum).toContain("not_found")
    }
  })

  it("needs the read scope, and a key", async () => {
    const owner = await tenant(server)
    const invoice = await owner.client.post("/invoices", {
      items: [{ name: "Work", quantity: 1, unit_price: 10, vat_rate: 21 }]
    })
    const writer = await server().admin.post(`/organisations/${owner.organisation.id}/keys`, {
      name: "no read",
      scopes: ["write", "invoices:write"]
    })
    const refused = await server().as(writer.body.key).get(`/invoices/${invoice.body.id}/pdf`)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toBe("missing_scope:read")
    const anonymous = await server().anonymous.get(`/invoices/${invoice.body.id}/pdf`)
    expect(anonymous.status).toBe(401)
  })
})

describe.skipIf(!hasPoppler)("PDF content (needs poppler-utils: pdftotext, pdftoppm)", () => {
  onEveryStore("PDFs of quotes and invoices", (server) => {
    it("prints a quote's seller, buyer, number, dates, lines, VAT per rate and totals as the API answers them", async () => {
      const { client, key } = await tenant(server)
      const company = await buyerCompany(client)
      const created = await client.post("/quotes", {
        company_id: company.id,
        valid_until: "2027-01-31",
        items: [
          {
            name: "Návrh loga a vizuálního stylu",
            quantity: 3,
            unit: "h",
            unit_price: 1250,
            vat_rate: 21,
            discount_percent: 10
          },
          { name: "Tisk vizitek", quantity: 500, unit: "ks", unit_price: 2.35, vat_rate: 12 },
          { name: "Konzultace", quantity: 1.5, unit_price: 980, vat_rate: 21 },
          // Figures wider than their column are set smaller on one line, never wrapped.
          { name: "Licence na rok", quantity: 1000, unit_price: 12345.67, vat_rate: 12 }
        ]
      })
      expect(created.status, created.text).toBe(201)
      const quote = (await client.get(`/quotes/${created.body.id}`)).body

      const pdf = await getPdf(server(), key, `/quotes/${quote.id}/pdf`)
      expect(pdf.status).toBe(200)
      expect(pdf.headers.get("content-type")).toBe("application/pdf")
      expect(pdf.headers.get("content-disposition")).toBe(`inline; filename="${quote.number}.pdf"`)
      expect(pdf.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-")

      const lines = textOf(pdf.bytes)
      lineWith(lines, "Quote")
      lineWith(lines, quote.number)
      lineWith(lines, "Valid until")
      lineWith(lines, quote.valid_until)
      lineWith(lines, quote.created_at.slice(0, 4))
      expectSeller(lines)
      lineWith(lines, "Žluťoučký kůň a.s.")
      lineWith(lines, "Brno, CZ")
      lineWith(lines, "CZ87654321")
      expectFigures(lines, quote)
      // Two lines at each rate: a summary row is their sum, not a line's own figures.
      expect(quote.vat_summary).toHaveLength(2)
      expect(quote.items.filter((item: any) => item.vat_rate === 21)).toHaveLength(2)
      expect(quote.items.filter((item: any) => item.vat_rate === 12)).toHaveLength(2)

      // It opens: poppler renders its first page.
      mkdirSync(ARTIFACTS, { recursive: true })
      const pdfFile = join(ARTIFACTS, "quote.pdf")
      writeFileSync(pdfFile, pdf.bytes)
      execFileSync("pdftoppm", [
        "-png",
        "-r",
        "60",
        "-f",
        "1",
        "-l",
        "1",
        "-singlefile",
        pdfFile,
        join(ARTIFACTS, "quote")
      ])
      const png = readFileSync(join(ARTIFACTS, "quote.png"))
      expect(png.subarray(1, 4).toString("latin1")).toBe("PNG")
      expect(png.length).toBeGreaterThan(5000)
    })

    it("prints amounts from their exact decimals, beyond the digits a JSON number carries", async () => {
      const { client, key } = await tenant(server)
      const created = await client.post("/quotes", {
        items: [{ name: "Everything", quantity: 999999999, unit_price: 999999999999.99, vat_rate: 21 }]
      })
      expect(created.status, created.text).toBe(201)
      // The JSON number is the nearest double (1.2099999987899879e+21); the store keeps every digit.
      expect(created.body.total).toBe(1.2099999987899879e21)
      const lines = textOf((await getPdf(server(), key, `/quotes/${created.body.id}/pdf`)).bytes)
      lineWith(lines, "999,999,998,999,990,000,000.01")
      lineWith(lines, "209,999,999,789,997,900,000.00")
      lineWith(lines, "1,209,999,998,789,987,900,000.01 CZK")
    })

    it("prints an issued foreign-currency invoice with its number, dates and exchange rate", async () => {
      const { client, key } = await tenant(server)
      const company = await buyerCompany(client)
      const invoice = await issuedInvoice(
        client,
        {
          company_id: company.id,
          currency: "EUR",
          issue_date: "2026-11-20",
          fulfilment_date: "2026-11-19",
          due_date: "2026-12-04",
          items: [
            { name: "Údržba serveru", quantity: 12, unit: "h", unit_price: 65.5, vat_rate: 21 },
            { name: "Licence", quantity: 1, unit_price: 1499.99, vat_rate: 21, discount_percent: 15 }
          ]
        },
        { exchange_rate: 25.125 }
      )
      expect(invoice.number).toBeDefined()

      const pdf = await getPdf(server(), key, `/invoices/${invoice.id}/pdf`)
      expect(pdf.status).toBe(200)
      expect(pdf.headers.get("content-type")).toBe("application/pdf")
      expect(pdf.headers.get("content-disposition")).toBe(`inline; filename="${invoice.number}.pdf"`)
      const lines = textOf(pdf.bytes)
      lineWith(lines, "Invoice")
      lineWith(lines, `No. ${invoice.number}`)
      lineWith(lines, invoice.issue_date, invoice.fulfilment_date, invoice.due_date)
      expectSeller(lines)
      lineWith(lines, invoice.buyer.name)
      expectFigures(lines, invoice)
      lineWith(lines, "Exchange rate", `1 EUR = ${invoice.exchange_rate} CZK`)
      lineWith(lines, "Payment", SELLER.bank_account, `reference ${invoice.number}`)
    })

    it("prints the VAT exemption reason of an exempt buyer's invoice", async () => {
      const { client, key } = await tenant(server)
      const company = await buyerCompany(client, { name: "Nadační fond Úsměv", custom: { vat_exempt: true } })
      const invoice = await issuedInvoice(client, {
        company_id: company.id,
        items: [{ name: "Dar – tisk letáků", quantity: 2, unit_price: 300, vat_rate: 21 }]
      })
      expect(invoice.vat_reason).not.toBeNull()
      const lines = textOf((await getPdf(server(), key, `/invoices/${invoice.id}/pdf`)).bytes)
      lineWith(lines, "VAT exemption", invoice.vat_reason)
      lineWith(lines, "Nadační fond Úsměv")
      expectFigures(lines, invoice)
    })

    it("prints a draft invoice as DRAFT, named after its id, and the same document as the same bytes", async () => {
      const { client, key } = await tenant(server)
      const draft = await client.post("/invoices", {
        items: [{ name: "Práce", quantity: 1, unit_price: 100, vat_rate: 21 }]
      })
      expect(draft.status, draft.text).toBe(201)
      const first = await getPdf(server(), key, `/invoices/${draft.body.id}/pdf`)
      expect(first.status).toBe(200)
      expect(first.headers.get("content-disposition")).toBe(`inline; filename="DRAFT-${draft.body.id}.pdf"`)
      const lines = textOf(first.bytes)
      lineWith(lines, "DRAFT")
      expect(lines.some((line) => line.includes("No. "))).toBe(false)
      expectFigures(lines, draft.body)
      const again = await getPdf(server(), key, `/invoices/${draft.body.id}/pdf`)
      expect(again.bytes.equals(first.bytes)).toBe(true)
    })
  })
})
