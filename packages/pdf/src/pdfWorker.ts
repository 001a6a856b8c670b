/** The entry of a PDF worker thread (see `PdfWorkers`): a sheet in, the PDF's bytes out. */
import { parentPort } from "node:worker_threads"
import { render } from "./DocumentPdf.js"
import type { Answer } from "./PdfWorkers.js"
import type { Sheet } from "./Sheet.js"

const port = parentPort!

port.on("message", ({ id, job }: { readonly id: number; readonly job: Sheet }) => {
  render(job).then(
    (bytes) => {
      // Moved to the main thread, not copied: a buffer of its own, not a view into a shared pool.
      const buffer =
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
          ? (bytes.buffer as ArrayBuffer)
          : bytes.slice().buffer
      port.postMessage({ id, bytes: buffer } satisfies Answer, [buffer])
    },
    (error: unknown) => port.postMessage({ id, error: String(error) } satisfies Answer)
  )
})
