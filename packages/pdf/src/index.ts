export * as DocumentPdf from "./DocumentPdf.js"
export * as PdfRenderer from "./PdfRenderer.js"
export * as PdfWorkers from "./PdfWorkers.js"
export * as Sheet from "./Sheet.js"
