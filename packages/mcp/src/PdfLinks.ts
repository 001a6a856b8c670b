/**
 * The tools that show quotes or invoices give each one's PDF as well: where the CRM's HTTP server
 * serves it (`GET /api/v1/quotes/{id}/pdf`, `GET /api/v1/invoices/{id}/pdf`), so that an assistant
 * can hand a person the document itself. The same API key reads it (scope `read`).
 */
import { z } from "zod"
import type { ListResult } from "./Tool.js"

export type PdfKind = "quotes" | "invoices"

/** What a tool's description says of the `pdf` field. */
export const PDF_NOTE =
  " Each item's `pdf` is the path of its PDF on the CRM's HTTP server (GET it with the same API key, scope read)."

export const pdfPath = (kind: PdfKind, id: string): string => `/api/v1/${kind}/${id}/pdf`

/** An item's output schema with the `pdf` path `withPdfs` adds. */
export const withPdf = <T extends z.ZodObject>(item: T) =>
  item.extend({ pdf: z.string().describe("the path of the PDF on the CRM's HTTP server (GET it with the API key)") })

/** A list answer with each item's `pdf` path added. */
export const withPdfs =
  (kind: PdfKind) =>
  <A extends { readonly id: string }>(list: ListResult<A>): ListResult<A & { readonly pdf: string }> => ({
    ...list,
    items: list.items.map((item) => ({ ...item, pdf: pdfPath(kind, item.id) }))
  })
