/** The one pricing of document lines that quotes, invoices, previews and PDFs share. */
export { type LineAmounts, priceDocument, priceLine } from "./Pricing/LinePrice.js"
export * from "./Pricing/LineSchemas.js"
export * from "./Pricing/PricedDocument.js"
