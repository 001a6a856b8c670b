/**
 * How the PDF routes (`GET /quotes/{id}/pdf`, `GET /invoices/{id}/pdf`) get a document's PDF: the
 * transport lays nothing out and depends on no PDF library. The composition root provides a
 * renderer beside the kernel's services (the server provides `PdfRenderer.layer` of `@crm/pdf`).
 *
 * Without one, an embedder that left `@crm/pdf` out, the PDF routes answer 501 `not_implemented`
 * with a detail that says so: not a 503, whose Retry-After would invite retries that cannot succeed.
 */
import type { Invoicing, Quotes, Settings } from "@crm/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { file, HttpFailure, type Reply } from "./Reply.js"

/** A document to render, with what it prints beside its own fields. */
export type Document =
  | { readonly kind: "invoice"; readonly invoice: Invoicing.Invoice }
  | { readonly kind: "quote"; readonly quote: Quotes.Quote; readonly buyer: Invoicing.Buyer }

export class DocumentRenderer extends Context.Tag("@crm/http/DocumentRenderer")<
  DocumentRenderer,
  {
    /** The document as the bytes of a PDF file, its seller from the organisation's `settings`. */
    readonly render: (settings: Settings.Settings, document: Document) => Effect.Effect<Uint8Array>
  }
>() {}

/** What a PDF route answers where no renderer is provided. */
export const NO_RENDERER = HttpFailure.of(
  "not_implemented",
  "this server renders no PDFs: its composition provides no DocumentRenderer (the layer of @crm/pdf)"
)

/** The number a document's file is saved under: an unissued invoice has none yet. */
const numberOf = (document: Document, id: string): string =>
  document.kind === "quote" ? document.quote.number : (document.invoice.number ?? `DRAFT-${id}`)

/** A character a file name on some system cannot hold (a number series may use `/`) becomes `-`. */
const fileNameOf = (document: Document, id: string) => `${numberOf(document, id).replace(/[^A-Za-z0-9._-]/g, "-")}.pdf`

/** The reply of a PDF route: the file, shown in the browser, saved under the document's number. */
export const reply = (
  settings: Settings.Settings,
  document: Document,
  id: string
): Effect.Effect<Reply, HttpFailure<"not_implemented">> =>
  Effect.flatMap(
    Effect.serviceOption(DocumentRenderer),
    Option.match({
      onNone: () => Effect.fail(NO_RENDERER),
      onSome: (renderer) =>
        Effect.map(renderer.render(settings, document), (bytes) =>
          file("application/pdf", bytes, { "content-disposition": `inline; filename="${fileNameOf(document, id)}"` })
        )
    })
  )
