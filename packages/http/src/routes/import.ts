/** `POST /admin/v1/organisations/{id}/import`: an organisation's existing data as JSON lines. */
import { Import, Organisation } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { admin, route } from "../Route.js"

const ImportLines = z
  .string()
  .describe(
    `JSON lines (Content-Type application/x-ndjson or application/jsonl), at most ${Import.MAX_LINES} non-blank lines, each one object {"type": "<kind>", "ref"?: "<name>", ...fields}. The fields are the body of the kernel operation the kind runs, validated with the same schema: contact (ContactInput), company (CompanyCreate), deal (DealCreate), task (TaskCreate), note (a note on a contact, company, deal or record; its own type as note_type), call (a call log), product (ProductCreate), stock (the stock endpoint's body plus product_id; its id is the product's), record (RecordCreate; the record type key as record_type), quote (QuoteCreate), invoice (InvoiceCreate, a draft), order (the webshop order body), return, ticket, purchase_order, site, page, post, link_page, booking_series, booking. Any string value "${Import.REF_PREFIX}<name>" (an id field such as contact_id, company_id, deal_id, entity_id, product_id, site_id, series_id, also inside items and custom) is replaced by the id created by the earlier line whose ref is <name>. Blank lines are skipped. All lines are imported or none: the first refused line is reported with its line number and the kernel's error.`
  )

export const importRoutes = [
  route({
    method: "POST",
    path: "/organisations/{id}/import",
    params: { id: Organisation.OrganisationId },
    operationId: "adminImport",
    tag: "admin",
    guard: admin,
    summary: `Import records as JSON lines through the kernel's operations, all or nothing (types: ${Import.IMPORT_TYPES.join(", ")}); mode=upsert upserts contacts by email, companies by domain and products by SKU; dry_run=true reports what would be created, changed and refused, writing nothing`,
    query: Import.ImportQuery,
    body: ImportLines,
    rawBody: "ndjson",
    success: { status: 200, schema: Import.ImportReport, description: "what was imported, line by line" },
    errors: ["not_found", "import_failed"],
    handle: ({ params, query, body }) =>
      Effect.flatMap(Import.Import, (service) => service.run(params.id, body, { keyId: null }, query)).pipe(
        Effect.map(ok)
      )
  })
]

export const importArea: Area = { admin: importRoutes, schemaNames: named(Import, "ImportReport", "ImportedItem") }
