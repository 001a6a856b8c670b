/**
 * The renderer the HTTP edge's PDF routes ask for (`DocumentRenderer` of `@crm/http`): a document's
 * sheet rendered by the process's PDF workers, or on the event loop where a bundle carries no
 * worker entry (see `PdfWorkers`). The layer holds the workers while it lives: provided to a
 * server's listener, they end with the server, after its last request.
 */
import { DocumentRenderer } from "@crm/http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { render } from "./DocumentPdf.js"
import * as PdfWorkers from "./PdfWorkers.js"
import { type Sheet, sheetOf } from "./Sheet.js"

const rendered = (sheet: Sheet): Promise<Uint8Array> =>
  PdfWorkers.pool === undefined ? render(sheet) : PdfWorkers.pool.run(sheet)

export const layer: Layer.Layer<DocumentRenderer.DocumentRenderer> = Layer.scoped(
  DocumentRenderer.DocumentRenderer,
  Effect.as(
    PdfWorkers.hold,
    DocumentRenderer.DocumentRenderer.of({
      render: (settings, document) => Effect.promise(() => rendered(sheetOf(settings, document)))
    })
  )
)
