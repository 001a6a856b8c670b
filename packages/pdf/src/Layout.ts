/**
 * The page of a quote or an invoice drawn with pdfkit on A4: the seller and its title on top, the
 * parties, the dates, the lines, the VAT summary beside the totals, the notes, and a footer on
 * every page. The text is set in the fonts `DocumentPdf` registers as `regular` and `bold`.
 */
import { Money } from "@crm/core"
import type { Line, Sheet } from "./Sheet.js"

type Pdf = PDFKit.PDFDocument

// Layout, in PDF points (A4, 72 to the inch).
const PAGE = { width: 595.28, height: 841.89 }
export const MARGIN = 50
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

/** Draws the sheet on the document, page after page, footers last (they number the pages). */
export const draw = (doc: Pdf, sheet: Sheet) => {
  const format = numbers(sheet.currency)
  let y = header(doc, sheet)
  y = parties(doc, sheet, y)
  y = facts(doc, sheet, y)
  y = lines(doc, sheet, columnsOf(format), y)
  y = summary(doc, sheet, format, y)
  notes(doc, sheet, y)
  footers(doc, sheet)
}
