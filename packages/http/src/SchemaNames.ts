/**
 * The named shapes of the OpenAPI document (its `components.schemas`), which client generators turn
 * into named types: those each area names (`Area.schemaNames`), and those of the edge and those
 * several areas share, named here.
 *
 * The names live in the areas rather than in a `.meta({ id })` on each core schema: an id in zod's
 * global registry would reach every JSON Schema made from those schemas, so the MCP tool listings
 * would turn into `$defs` and `$ref`s, and an embedder's own schema named `Contact` would collide
 * with ours.
 */
import { Pricing, Validation } from "@crm/core"
import { z } from "zod"
import { type Name, named } from "./Area.js"
import { areas } from "./Areas.js"

export type { Name } from "./Area.js"

/** The body of every error answer (`Edge.errorBody` writes it). */
export const ErrorBody = z.object({
  error: z.string().describe("the error code"),
  detail: z
    .union([z.array(Validation.ValidationIssue), z.unknown()])
    .describe(
      "what went wrong: for validation_failed a list of issues, else a message or an object the error code's description names"
    ),
  request_id: z.string().describe("the X-Request-Id of the response, to quote when reporting it")
})

/** Each named shape and its names. */
export const schemaNames: ReadonlyMap<z.ZodType, Name> = new Map([
  [ErrorBody, { input: "Error", output: "Error" }],
  ...named(Validation, "ValidationIssue"),
  // The lines of quotes and invoices alike.
  ...named(Pricing, "Line", "LineInput", "VatSummaryRow"),
  ...areas.flatMap((area) => area.schemaNames ?? [])
])
