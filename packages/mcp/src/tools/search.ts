/**
 * `search` and `fetch`: the pair assistants use for connectors (results with an id, a title and a
 * snippet; `fetch` turns one of those ids into the full text and the record), over the kernel's
 * `Search`. Ids are `contact:<uuid>`, `company:<uuid>` and `deal:<uuid>`, so one id names one
 * record of one kind.
 */
import { Companies, Contacts, Deals, Search } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { limitInput, listResult, READ_ONLY, tool } from "../Tool.js"

export const SEARCH_CAP = 20

/** A result as a connector reads it: `Search`'s hit, and the page it came from, which these records lack. */
const Hit = z.object({
  id: z.string().describe("contact:<uuid>, company:<uuid> or deal:<uuid>: what fetch takes"),
  type: z.enum(["contact", "company", "deal"]),
  title: z.string(),
  text: z.string().describe("a short snippet"),
  url: z.null()
})

const search = tool({
  name: "search",
  title: "Search the CRM",
  description:
    "Finds contacts (by name, email or phone), companies (by name, domain or email) and deals (by title) whose text contains `query` (case-insensitive), at most 20 results. " +
    "Each result has an `id` such as `contact:<uuid>` to pass to `fetch` for the full record, a `title` and a short `text` snippet. " +
    "Use it when you do not know what kind of record the user means; results alternate contact, company, deal, each kind newest first.",
  scope: "read",
  annotations: READ_ONLY,
  input: z.object({
    query: Contacts.ContactListQuery.shape.q
      .unwrap()
      .min(1)
      .describe("text to look for, e.g. a name, an email address, a domain or words of a deal title"),
    limit: limitInput(SEARCH_CAP, SEARCH_CAP)
  }),
  output: listResult(Hit),
  run: ({ query, limit }, { principal }) =>
    Effect.flatMap(Search.Search, (service) => service.find(principal.organisation, query, limit)).pipe(
      // A connector's result names the page it came from; these records have none.
      Effect.map(({ items, has_more }) => ({ items: items.map((hit) => ({ ...hit, url: null })), has_more }))
    )
})

const fetchRecord = tool({
  name: "fetch",
  title: "Fetch one record",
  description:
    "Returns the full record behind an id that `search` returned (`contact:<uuid>`, `company:<uuid>` or `deal:<uuid>`): " +
    "`text` lists every field as readable lines and `metadata` is the record itself. Use it after `search` to read a result in full.",
  scope: "read",
  annotations: READ_ONLY,
  input: z.object({
    id: z.string().min(1).max(100).describe("an id as returned by search, e.g. contact:6f1c2b1e-...")
  }),
  output: Hit.extend({
    text: z.string().describe("every field of the record as a readable line"),
    metadata: z.union([Contacts.Contact, Companies.Company, Deals.Deal]).describe("the record itself, as its type says")
  }),
  run: ({ id }, { principal }) =>
    Effect.flatMap(Search.Search, (service) => service.fetch(principal.organisation, id)).pipe(
      Effect.map(({ id, type, title, text, record }) => ({ id, type, title, text, metadata: record, url: null }))
    )
})

export const searchTools = [search, fetchRecord]
