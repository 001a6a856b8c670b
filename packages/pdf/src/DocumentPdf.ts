/**
 * A sheet (`Sheet`) as the bytes of a PDF file, laid out by `Layout`.
 *
 * pdfkit is loaded on the first PDF, not at start (it is large and reads its data files from its
 * own directory, so the server bundle leaves it in node_modules). The text is set in DejaVu Sans
 * (regular and bold, from the `dejavu-fonts-ttf` package) for Czech and every other Latin script.
 * The same document gives the same bytes: the PDF's dates and identifier are made from the
 * document's own `updated_at`, not the time of the request. A worker thread calls this, off the
 * event loop (see `PdfWorkers`).
 */
import { createRequire } from "node:module"
import { draw, MARGIN } from "./Layout.js"
import type { Sheet } from "./Sheet.js"

const resolveFrom = createRequire(import.meta.url)

let pdfkit: Promise<typeof import("pdfkit")> | undefined
const loadPdfkit = () => {
  pdfkit ??= import("pdfkit").then((module) => module.default)
  return pdfkit
}

const FONTS = { regular: "dejavu-fonts-ttf/ttf/DejaVuSans.ttf", bold: "dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf" }

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
  draw(doc, sheet)
  doc.end()
  await ended
  return Buffer.concat(chunks)
}
