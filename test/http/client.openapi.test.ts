/**
 * The types `@crm/client` is built on are what openapi-typescript makes of our OpenAPI document:
 * regenerated here, they must equal the committed `packages/client/src/generated/openapi.ts` (else
 * run `npm run generate --workspace @crm/client`). The document's named shapes come out as named types,
 * which the type-level uses below compile against (`npm run typecheck`).
 */
import { readFileSync } from "node:fs"
import type { components, operations, paths } from "@crm/client"
import { describe, expect, it } from "vitest"
import { generate, TARGET } from "../../packages/client/scripts/generate.js"

type Schemas = components["schemas"]

describe("the client's generated types", () => {
  it("are what openapi-typescript makes of the current document (the committed file is not stale)", async () => {
    const made = await generate()
    expect(
      made === readFileSync(TARGET, "utf8"),
      "packages/client/src/generated/openapi.ts is stale: npm run generate --workspace @crm/client"
    ).toBe(true)
  })

  it("name the core's shapes as components, referenced from the operations", () => {
    const text = readFileSync(TARGET, "utf8")
    const named = [
      "Contact",
      "ContactCreate",
      "ContactPatch",
      "ContactPage",
      "Company",
      "Deal",
      "DealCreate",
      "DealPage",
      "Invoice",
      "InvoiceCreate",
      "InvoicePage",
      "Product",
      "Order",
      "Error",
      "ValidationIssue",
      "Organisation",
      "OrganisationCreate",
      "KeyCreate",
      "CreatedKey"
    ]
    const schemas = text.slice(text.indexOf("export interface components {"))
    for (const name of named) expect(schemas, name).toContain(`\n        ${name}: {`)
    const createContact = text.slice(text.indexOf("    createContact: {"))
    expect(createContact.slice(0, createContact.indexOf("\n    };"))).toContain(
      '"application/json": components["schemas"]["ContactCreate"]'
    )
  })
})

// A small use of the generated types, as a third party would write it; checked by `npm run typecheck`.
const contact: Schemas["Contact"] = {
  id: "5b0c4a36-8d1f-4c1e-9d35-6f0f3c0e4a11",
  first_name: "Ada",
  last_name: null,
  email: "ada@example.com",
  phone: null,
  company_id: null,
  status: "customer",
  source: null,
  custom: {},
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z"
}
const input: Schemas["ContactCreate"] = { first_name: "Ada", status: "lead" }
// @ts-expect-error: status is one of lead, prospect, customer, inactive
const wrongStatus: Schemas["ContactCreate"] = { status: "vip" }
// @ts-expect-error: a contact has no such field
const wrongField: Schemas["Contact"] = { ...contact, nickname: "Ada" }
const page: operations["listContacts"]["responses"][200]["content"]["application/json"] = {
  data: [contact],
  limit: 50,
  offset: 0,
  has_more: false,
  next_cursor: null
}
const created: paths["/api/v1/contacts"]["post"]["responses"][201]["content"]["application/json"] = contact
type Conflict = paths["/api/v1/contacts"]["post"]["responses"][409]["content"]["application/json"]
const failure: Conflict = {
  error: "email_already_exists",
  detail: "a live contact already has this address",
  request_id: "r-1"
}
// @ts-expect-error: a 409 of POST /contacts is never not_found
const misfiled: Conflict = { ...failure, error: "not_found" }
const issue: Schemas["ValidationIssue"] = { path: "email", message: "Invalid email", code: "invalid_format" }
const invoiceStatus: Schemas["Invoice"]["status"] = "issued"
export const uses = [input, wrongStatus, wrongField, page, created, failure, misfiled, issue, invoiceStatus]
