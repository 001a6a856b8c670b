import { defineConfig } from "tsup"
import { library } from "../../tsup.library.js"

// The PDF worker's entry is a file of its own, beside the module that starts it (see src/PdfWorkers.ts).
export default defineConfig(library({ index: "src/index.ts", pdfWorker: "src/pdfWorker.ts" }))
