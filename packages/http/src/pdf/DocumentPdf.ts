/**
 * Quotes and invoices as PDF documents to send: the figures are those the API answers (the lines,
 * totals and VAT summary the core's pricing stored on the document), laid out here and nowhere
 * computed again.
 *
 * pdfkit is loaded on the first PDF, not at start (it is large and reads its data files from its
 * own directory, so the server bundle leaves it in node_modules). The text is set in DejaVu Sans
 * (regular and bold, from the `dejavu-fonts-ttf` package) for Czech and every other Latin script.
 * The same document gives the same bytes: the PDF's dates and identifier are made from the
 * document's own `updated_at`, not the time of the request. A worker thread renders it, off the
 * event loop (see `PdfWorkers`).
 */
import { createRequire } from "node:module"
import { type Invoicing, Money, type Quotes, type Settings } from "@crm/core"
import * as Effect from "effect/Effect"
import { file, type Reply } from "../Reply.js"
import * as PdfWorkers from "./PdfWorkers.js"

type Pdf = PDFKit.PDFDocument
type Buyer = Invoicing.Buyer
type Line = Invoicing.Invoice["items"][number]
type Amounts = Pick<Invoicing.Invoice, "subtotal" | "vat_total" | "total" | "vat_summary">

/** What a page shows, in the order it shows it: every text already final, and plain data. */
export interface Sheet {
  readonly title: string
  /** The document's number, else `DRAFT`. */
  readonly number: string
  readonly draft: boolean
  readonly seller: ReadonlyArray<string>
  readonly buyer: ReadonlyArray<string>
  readonly facts: ReadonlyArray<readonly [label: string, value: string]>
  readonly currency: string
  readonly items: ReadonlyArray<Line>
  readonly amounts: Amounts
  readonly notes: ReadonlyArray<readonly [label: string, text: string]>
  readonly footer: string
  readonly updatedAt: string
}

const resolveFrom = createRequire(import.meta.url)

let pdfkit: Promise<typeof import("pdfkit")> | undefined
const loadPdfkit = () => {
  pdfkit ??= import("pdfkit").then((module) => module.default)
  return pdfkit
}

const FONTS = { regular: "dejavu-fonts-ttf/ttf/DejaVuSans.ttf", bold: "dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf" }

const INVOICE_TITLES: Record<Invoicing.InvoiceKind, string> = {
  normal: "Invoice",
  proforma: "Proforma invoice",
  advance: "Advance invoice",
  corrective: "Corrective invoice",
  storno: "Credit note"
}

const present = (lines: ReadonlyArray<string | null | undefined>): Array<string> =>
  lines.filter((line): line is string => line != null && line.trim() !== "")

const sellerOf = (settings: Settings.Settings): Array<string> => {
  const seller = settings.seller
  return present([
    seller.legal_name ?? settings.name,
    ...(seller.address ?? "").split("\n"),
    settings.country,
    seller.registration_number === null ? null : `Reg. no. ${seller.registration_number}`,
    seller.vat_number === null ? null : `VAT no. ${seller.vat_number}`,
    seller.email,
    seller.phone
  ])
}

const buyerOf = (buyer: Buyer): Array<string> => {
  const place = present([buyer.city, buyer.country]).join(", ")
  return present([
    buyer.name ?? "(no name)",
    place,
    buyer.vat_number === null ? null : `VAT no. ${buyer.vat_number}`,
    buyer.email
  ])
}

const footerOf = (settings: Settings.Settings): string =>
  present([
    settings.seller.legal_name ?? settings.name,
    settings.seller.registration_number === null ? null : `Reg. no. ${settings.seller.registration_number}`,
    settings.seller.vat_number === null ? null : `VAT no. ${settings.seller.vat_number}`
  ]).join("  ·  ")

/** A timestamp's calendar day where the organisation is, as the API's dates are written. */
const dayOf = (timestamp: string, timezone: string): string =>
  new Intl.DateTimeFormat("en-CA", { timeZone: timezone, year: "numeric", month: "2-digit", day: "2-digit" }).format(
    new Date(timestamp)
  )

export const invoiceSheet = (settings: Settings.Settings, invoice: Invoicing.Invoice): Sheet => {
  const foreign = invoice.exchange_rate !== null && invoice.currency !== settings.default_currency
  const payTo = settings.seller.bank_account
  return {
    title: INVOICE_TITLES[invoice.kind],
    number: invoice.number ?? "DRAFT",
    draft: invoice.number === undefined,
    seller: sellerOf(settings),
    buyer: buyerOf(invoice.buyer),
    facts: [
      ["Issue date", invoice.issue_date],
      ["Taxable supply", invoice.fulfilment_date],
      ["Due date", invoice.due_date],
      ["Currency", invoice.currency]
    ],
    currency: invoice.currency,
    items: invoice.items,
    amounts: invoice,
    notes: [
      ...(invoice.vat_reason === null ? [] : [["VAT exemption", invoice.vat_reason] as const]),
      ...(foreign
        ? [["Exchange rate", `1 ${invoice.currency} = ${invoice.exchange_rate} ${settings.default_currency}`] as const]
        : []),
      ...(payTo === null || invoice.kind === "storno"
        ? []
        : [
            [
              "Payment",
              present([
                `to ${payTo}`,
                settings.seller.bic === null ? null : `BIC ${settings.seller.bic}`,
                invoice.number === undefined ? null : `reference ${invoice.number}`,
                `by ${invoice.due_date}`
              ]).join(", ")
            ] as const
          ]),
      ...(invoice.note === null ? [] : [["Note", invoice.note] as const])
    ],
    footer: footerOf(settings),
    updatedAt: invoice.updated_at
  }
}

export const quoteSheet = (settings: Settings.Settings, quote: Quotes.Quote, buyer: Buyer): Sheet => ({
  title: "Quote",
  number: quote.number,
  draft: false,
  seller: sellerOf(settings),
  buyer: buyerOf(buyer),
  facts: [
    ["Date", dayOf(quote.created_at, settings.timezone)],
    ...(quote.valid_until === null ? [] : [["Valid until", quote.valid_until] as const]),
    ["Currency", quote.currency]
  ],
  currency: quote.currency,
  items: quote.items,
  amounts: quote,
  notes: [
    ...(quote.vat_reason === null ? [] : [["VAT exemption", quote.vat_reason] as const]),
    ...(quote.note === null ? [] : [["Note", quote.note] as const])
  ],
  footer: footerOf(settings),
  updatedAt: quote.updated_at
})

// Layout, in PDF points (A4, 72 to the inch).
const PAGE = { width: 595.28, height: 841.89 }
const MARGIN = 50
const WIDTH = PAGE.width - 2 * MARGIN
const BOTTOM = PAGE.height - MARGIN - 24
const INK = "#1f2933"
const MUTED = "#6b7280"
const RULE = "#d5d9de"
const SHADE = "#f1f3f5"
const ACCENT = "#1f3a5f"
const DRAFT_RED = "#b42318"
const PAD = 4
/** The least room between two figures side by side. */
const GAP = 8

interface Column {
  readonly heading: string
  readonly width: number
  readonly align: "left" | "right"
  readonly cell: (line: Line) => string
}

const numbers = (currency: string) => {
  const digits = Money.minorUnits(currency)
  const amount = new Intl.NumberFormat("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
  // A unit price may be finer than the minor unit (0.125 per piece); it is printed as given.
  const price = new Intl.NumberFormat("en-US", { minimumFractionDigits: digits, maximumFractionDigits: 10 })
  const plain = new Intl.NumberFormat("en-US", { maximumFractionDigits: 10 })
  // NumberFormat reads decimal text exactly (Intl.NumberFormat v3, Node 19+), so an amount is printed
  // from its digits; the ES2022 lib's declaration does not name the string form yet.
  const digitsOf = (a: Money.Amount) => a as unknown as number
  return {
    amount: (a: Money.Amount) => amount.format(digitsOf(a)),
    price: (a: Money.Amount) => price.format(digitsOf(a)),
    plain: (n: number) => plain.format(n),
    percent: (n: number) => `${plain.format(n)}%`
  }
}

const columnsOf = (format: ReturnType<typeof numbers>): ReadonlyArray<Column> => [
  { heading: "Item", width: 145, align: "left", cell: (line) => line.name },
  {
    heading: "Qty",
    width: 46,
    align: "right",
    cell: (line) => (line.unit === null ? format.plain(line.quantity) : `${format.plain(line.quantity)} ${line.unit}`)
  },
  { heading: "Unit price", width: 62, align: "right", cell: (line) => format.price(line.unit_price) },
  {
    heading: "Disc.",
    width: 34,
    align: "right",
    cell: (line) => (line.discount_percent === null ? "" : format.percent(line.discount_percent))
  },
  { heading: "VAT", width: 32, align: "right", cell: (line) => format.percent(line.vat_rate) },
  { heading: "Net", width: 60, align: "right", cell: (line) => format.amount(line.net) },
  { heading: "VAT amt", width: 56, align: "right", cell: (line) => format.amount(line.vat) },
  { heading: "Total", width: WIDTH - 435, align: "right", cell: (line) => format.amount(line.gross) }
]

const block = (doc: Pdf, heading: string, lines: ReadonlyArray<string>, x: number, y: number, width: number) => {
  doc.font("bold").fontSize(7.5).fillColor(MUTED).text(heading.toUpperCase(), x, y, { width, characterSpacing: 1 })
  let at = y + 14
  lines.forEach((line, i) => {
    doc
      .font(i === 0 ? "bold" : "regular")
      .fontSize(i === 0 ? 11 : 9.5)
      .fillColor(INK)
    doc.text(line, x, at, { width })
    at += doc.heightOfString(line, { width }) + (i === 0 ? 3 : 1.5)
  })
  return at
}

const header = (doc: Pdf, sheet: Sheet): number => {
  doc.rect(0, 0, PAGE.width, 6).fill(ACCENT)
  doc
    .font("bold")
    .fontSize(15)
    .fillColor(INK)
    .text(sheet.seller[0] ?? "", MARGIN, MARGIN, { width: 280 })
  const sellerBottom = MARGIN + doc.heightOfString(sheet.seller[0] ?? "", { width: 280 })
  doc
    .font("bold")
    .fontSize(22)
    .fillColor(ACCENT)
    .text(sheet.title, MARGIN + 215, MARGIN - 4, { width: WIDTH - 215, align: "right" })
  doc
    .font("bold")
    .fontSize(12)
    .fillColor(sheet.draft ? DRAFT_RED : INK)
    .text(sheet.draft ? "DRAFT" : `No. ${sheet.number}`, MARGIN + 215, MARGIN + 26, {
      width: WIDTH - 215,
      align: "right"
    })
  return Math.max(sellerBottom, MARGIN + 44) + 14
}

const parties = (doc: Pdf, sheet: Sheet, y: number): number => {
  const half = (WIDTH - 30) / 2
  const seller = block(doc, "Seller", sheet.seller, MARGIN, y, half)
  const buyer = block(doc, "Buyer", sheet.buyer, MARGIN + half + 30, y, half)
  return Math.max(seller, buyer) + 16
}

const facts = (doc: Pdf, sheet: Sheet, y: number): number => {
  const height = 38
  doc.rect(MARGIN, y, WIDTH, height).fill(SHADE)
  const width = WIDTH / sheet.facts.length
  sheet.facts.forEach(([label, value], i) => {
    const x = MARGIN + i * width + 10
    doc
      .font("regular")
      .fontSize(7.5)
      .fillColor(MUTED)
      .text(label, x, y + 7, { width: width - 14 })
    doc
      .font("bold")
      .fontSize(10.5)
      .fillColor(INK)
      .text(value, x, y + 19, { width: width - 14 })
  })
  return y + height + 18
}

const tableHead = (doc: Pdf, columns: ReadonlyArray<Column>, y: number): number => {
  doc.rect(MARGIN, y, WIDTH, 20).fill(ACCENT)
  let x = MARGIN
  for (const column of columns) {
    doc
      .font("bold")
      .fontSize(8)
      .fillColor("#ffffff")
      .text(column.heading, x + PAD, y + 6, { width: column.width - 2 * PAD, align: column.align, lineBreak: false })
    x += column.width
  }
  return y + 20
}

/** A figure on one line, right-aligned: a figure wider than its column is set smaller, never wrapped. */
const oneLine = (doc: Pdf, text: string, x: number, y: number, width: number, size: number) => {
  doc.fontSize(size)
  const natural = doc.widthOfString(text)
  // A hair under the width: pdfkit breaks a line whose width rounds above it.
  const fitted = natural > width ? (size * width * 0.98) / natural : size
  doc.fontSize(fitted).text(text, x, y + (size - fitted) / 2, { width, align: "right", lineBreak: false })
}

const lines = (doc: Pdf, sheet: Sheet, columns: ReadonlyArray<Column>, top: number): number => {
  let y = tableHead(doc, columns, top)
  const nameWidth = columns[0]!.width - 2 * PAD
  for (const line of sheet.items) {
    doc.font("regular").fontSize(9)
    const height = Math.max(doc.heightOfString(line.name, { width: nameWidth }), 11) + 2 * PAD + 2
    if (y + height > BOTTOM) {
      doc.addPage()
      y = tableHead(doc, columns, MARGIN)
    }
    let x = MARGIN
    for (const column of columns) {
      const text = column.cell(line)
      const width = column.width - 2 * PAD
      doc.font("regular").fillColor(INK)
      if (column.align === "left") doc.fontSize(9).text(text, x + PAD, y + PAD + 1, { width })
      else oneLine(doc, text, x + PAD, y + PAD + 1, width, 9)
      x += column.width
    }
    y += height
    doc
      .moveTo(MARGIN, y)
      .lineTo(MARGIN + WIDTH, y)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke()
  }
  return y + 16
}

const summary = (doc: Pdf, sheet: Sheet, format: ReturnType<typeof numbers>, top: number): number => {
  const rows = sheet.amounts.vat_summary
  const needed = Math.max(22 + rows.length * 16, 80) + 10
  let y = top
  if (y + needed > BOTTOM) {
    doc.addPage()
    y = MARGIN
  }
  // The VAT summary on the left: one row per rate, as the tax return wants it.
  const widths = [46, 72, 66, 72]
  const headings = ["VAT rate", "Net", "VAT", "Total"]
  let x = MARGIN
  headings.forEach((heading, i) => {
    doc
      .font("bold")
      .fontSize(7.5)
      .fillColor(MUTED)
      .text(heading.toUpperCase(), x, y, { width: widths[i]!, align: i === 0 ? "left" : "right", lineBreak: false })
    x += widths[i]!
  })
  let left = y + 13
  doc
    .moveTo(MARGIN, left)
    .lineTo(MARGIN + 256, left)
    .lineWidth(0.5)
    .strokeColor(RULE)
    .stroke()
  left += 4
  for (const row of rows) {
    const cells = [
      format.percent(row.vat_rate),
      format.amount(row.net),
      format.amount(row.vat),
      format.amount(row.gross)
    ]
    x = MARGIN
    cells.forEach((cell, i) => {
      doc.font("regular").fillColor(INK)
      if (i === 0) doc.fontSize(9).text(cell, x, left, { width: widths[i]!, lineBreak: false })
      else oneLine(doc, cell, x + GAP, left, widths[i]! - GAP, 9)
      x += widths[i]!
    })
    left += 15
  }

  // The totals on the right, the amount due set apart; figures end where the table's do.
  const band = { x: MARGIN + WIDTH - 215, width: 215, pad: 10 }
  const labelX = band.x + band.pad
  const valueWidth = band.width - 2 * band.pad
  const totals: ReadonlyArray<readonly [string, Money.Amount]> = [
    ["Subtotal", sheet.amounts.subtotal],
    ["VAT", sheet.amounts.vat_total]
  ]
  // A figure takes the band's width beside its label, set smaller when it is wider, never wrapped.
  const figure = (label: string, value: Money.Amount, y: number, size: number, colours: readonly [string, string]) => {
    doc.fillColor(colours[0]).fontSize(size).text(label, labelX, y, { width: valueWidth })
    const beside = doc.widthOfString(label) + 8
    doc.fillColor(colours[1])
    oneLine(doc, `${format.amount(value)} ${sheet.currency}`, labelX + beside, y, valueWidth - beside, size)
  }
  let right = y
  for (const [label, value] of totals) {
    doc.font("regular")
    figure(label, value, right, 9.5, [MUTED, INK])
    right += 17
  }
  doc.rect(band.x, right, band.width, 28).fill(ACCENT)
  doc.font("bold")
  figure(sheet.draft || sheet.title === "Quote" ? "Total" : "Total due", sheet.amounts.total, right + 8, 12, [
    "#ffffff",
    "#ffffff"
  ])
  right += 28
  return Math.max(left, right) + 20
}

const notes = (doc: Pdf, sheet: Sheet, top: number) => {
  let y = top
  for (const [label, text] of sheet.notes) {
    doc.font("regular").fontSize(9)
    const height = doc.heightOfString(text, { width: WIDTH - 110 })
    if (y + height > BOTTOM) {
      doc.addPage()
      y = MARGIN
    }
    doc.font("bold").fontSize(9).fillColor(MUTED).text(label, MARGIN, y, { width: 105 })
    doc
      .font("regular")
      .fontSize(9)
      .fillColor(INK)
      .text(text, MARGIN + 110, y, { width: WIDTH - 110 })
    y += height + 6
  }
}

const footers = (doc: Pdf, sheet: Sheet) => {
  const range = doc.bufferedPageRange()
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i)
    const y = PAGE.height - MARGIN + 6
    doc
      .moveTo(MARGIN, y - 6)
      .lineTo(MARGIN + WIDTH, y - 6)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke()
    // Writing below the bottom margin would make pdfkit start another page.
    const margins = doc.page.margins
    doc.page.margins = { ...margins, bottom: 0 }
    doc.font("regular").fontSize(7.5).fillColor(MUTED)
    doc.text(sheet.footer, MARGIN, y, { width: WIDTH - 80, lineBreak: false })
    doc.text(`${sheet.number} · page ${i + 1} of ${range.count}`, MARGIN + WIDTH - 150, y, {
      width: 150,
      align: "right",
      lineBreak: false
    })
    doc.page.margins = margins
  }
}

/** The sheet as the bytes of a PDF file. */
export const render = async (sheet: Sheet): Promise<Uint8Array> => {
  const PDFDocument = await loadPdfkit()
  const made = new Date(sheet.updatedAt)
  const doc = new PDFDocument({
    size: "A4",
    margin: MARGIN,
    bufferPages: true,
    font: resolveFrom.resolve(FONTS.regular),
    info: {
      Title: sheet.draft ? `${sheet.title} (draft)` : `${sheet.title} ${sheet.number}`,
      Author: sheet.seller[0] ?? "",
      Producer: "CRM",
      Creator: "CRM",
      CreationDate: made,
      ModDate: made
    }
  })
  const chunks: Array<Buffer> = []
  doc.on("data", (chunk: Buffer) => chunks.push(chunk))
  const ended = new Promise<void>((done, fail) => {
    doc.on("end", done)
    doc.on("error", fail)
  })
  doc.registerFont("regular", resolveFrom.resolve(FONTS.regular))
  doc.registerFont("bold", resolveFrom.resolve(FONTS.bold))
  const format = numbers(sheet.currency)
  let y = header(doc, sheet)
  y = parties(doc, sheet, y)
  y = facts(doc, sheet, y)
  y = lines(doc, sheet, columnsOf(format), y)
  y = summary(doc, sheet, format, y)
  notes(doc, sheet, y)
  footers(doc, sheet)
  doc.end()
  await ended
  return Buffer.concat(chunks)
}

const rendered = (sheet: Sheet): Promise<Uint8Array> =>
  PdfWorkers.pool === undefined ? render(sheet) : PdfWorkers.pool.run(sheet)

/** A character a file name on some system cannot hold (a number series may use `/`) becomes `-`. */
const fileNameOf = (sheet: Sheet, id: string) =>
  `${(sheet.draft ? `DRAFT-${id}` : sheet.number).replace(/[^A-Za-z0-9._-]/g, "-")}.pdf`

/** The reply of a PDF route: the file, shown in the browser, saved under the document's number. */
export const pdfReply = (sheet: Sheet, id: string): Effect.Effect<Reply> =>
  Effect.map(
    Effect.promise(() => rendered(sheet)),
    (bytes) => file("application/pdf", bytes, { "content-disposition": `inline; filename="${fileNameOf(sheet, id)}"` })
  )
