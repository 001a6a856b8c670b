/**
 * `search` and `fetch`: the pair assistants use for connectors (results with an id, a title and a
 * snippet; `fetch` turns one of those ids into the full text and the record). Ids are
 * `contact:<uuid>`, `company:<uuid>` and `deal:<uuid>`, so one id names one record of one kind.
 */
import { Companies, Contacts, Deals, Errors, type Settings, Wire } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { limitInput, READ_ONLY, tool } from "../Tool.js"

export const SEARCH_CAP = 20

export type Kind = "contact" | "company" | "deal"

export interface SearchResult {
  readonly id: string
  readonly type: Kind
  readonly title: string
  readonly text: string
  readonly url: null
}

type Contact = Contacts.Contact
type Company = Companies.Company
type Deal = Deals.Deal

const present = (values: ReadonlyArray<string | null | undefined>, separator = " · "): string =>
  values.filter((value): value is string => value != null && value !== "").join(separator)

export const contactTitle = (contact: Contact): string =>
  present([contact.first_name, contact.last_name], " ") || contact.email || contact.phone || "(unnamed contact)"

export const stageOf = (organisation: Settings.Organisation, deal: Deal) => {
  const pipeline = organisation.settings.pipelines.find((candidate) => candidate.id === deal.pipeline_id)
  return { pipeline, stage: pipeline?.stages.find((candidate) => candidate.id === deal.status_id) }
}

const money = (deal: Deal): string | null => (deal.value === null ? null : `${deal.value} ${deal.currency}`)

const contactSnippet = (contact: Contact, companyName: string | null) =>
  present([contact.email, contact.phone, companyName, contact.status])

const companySnippet = (company: Company) =>
  present([company.domain, company.email, present([company.city, company.country], ", ")])

const dealSnippet = (organisation: Settings.Organisation, deal: Deal) => {
  const { stage } = stageOf(organisation, deal)
  return present([
    `${stage?.name ?? deal.status_id} (${deal.status_kind})`,
    money(deal),
    deal.expected_close_date === null ? null : `expected close ${deal.expected_close_date}`
  ])
}

/** Each record's fields as `field: value` lines; objects as JSON, absent values as `-`. */
const lines = (record: object, extra: ReadonlyArray<readonly [string, string | null]> = []): string =>
  [
    ...extra,
    ...Object.entries(record).map(
      ([field, value]) =>
        [field, value === null ? null : typeof value === "object" ? JSON.stringify(value) : String(value)] as const
    )
  ]
    .map(([field, value]) => `${field}: ${value ?? "-"}`)
    .join("\n")

// Names of the companies a page of contacts points at: one read per distinct company.
const companyNames = (organisation: Settings.Organisation, contacts: ReadonlyArray<Contact>) =>
  Effect.flatMap(Companies.Companies, (companies) =>
    Effect.forEach(
      [...new Set(contacts.flatMap((contact) => (contact.company_id === null ? [] : [contact.company_id])))],
      (id) =>
        companies.get(organisation, id).pipe(
          Effect.map((company) => [id, company.name] as const),
          Effect.catchTag("NotFound", () => Effect.succeed([id, null] as const))
        )
    ).pipe(Effect.map((pairs) => new Map(pairs)))
  )

/** One of each kind in turn, each kind in its own order, until `limit` results. */
const interleave = <A>(lists: ReadonlyArray<ReadonlyArray<A>>, limit: number): Array<A> => {
  const out: Array<A> = []
  for (let index = 0; out.length < limit && lists.some((list) => index < list.length); index++) {
    for (const list of lists) {
      if (index < list.length && out.length < limit) out.push(list[index]!)
    }
  }
  return out
}

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
  run: ({ query, limit }, { principal }) =>
    Effect.gen(function* () {
      const organisation = principal.organisation
      // One row past the limit of each kind tells whether anything was left out.
      const page = { limit, offset: 0 }
      const [contacts, companies, deals] = yield* Effect.all([
        Effect.flatMap(Contacts.Contacts, (service) => service.list(organisation, { q: query, ...page })),
        Effect.flatMap(Companies.Companies, (service) => service.list(organisation, { q: query, ...page })),
        Effect.flatMap(Deals.Deals, (service) => service.listBy(organisation, { q: query }, page))
      ])
      const names = yield* companyNames(organisation, contacts.data)
      const results: ReadonlyArray<ReadonlyArray<SearchResult>> = [
        contacts.data.map((contact) => ({
          id: `contact:${contact.id}`,
          type: "contact" as const,
          title: contactTitle(contact),
          text: contactSnippet(contact, contact.company_id === null ? null : (names.get(contact.company_id) ?? null)),
          url: null
        })),
        companies.data.map((company) => ({
          id: `company:${company.id}`,
          type: "company" as const,
          title: company.name,
          text: companySnippet(company),
          url: null
        })),
        deals.data.map((deal) => ({
          id: `deal:${deal.id}`,
          type: "deal" as const,
          title: deal.title,
          text: dealSnippet(organisation, deal),
          url: null
        }))
      ]
      const items = interleave(results, limit)
      const found = results.reduce((sum, list) => sum + list.length, 0)
      return {
        items,
        has_more: items.length < found || contacts.has_more || companies.has_more || deals.has_more
      }
    })
})

const FETCH_ID = /^(contact|company|deal):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i

export const parseFetchId = (id: string): { readonly kind: Kind; readonly uuid: string } | undefined => {
  const match = FETCH_ID.exec(id.trim())
  if (match === null) return undefined
  const uuid = Wire.IdInput.safeParse(match[2])
  return uuid.success ? { kind: match[1]!.toLowerCase() as Kind, uuid: uuid.data } : undefined
}

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
  run: ({ id }, { principal }) =>
    Effect.gen(function* () {
      const organisation = principal.organisation
      const parsed = parseFetchId(id)
      if (parsed === undefined) {
        return yield* Effect.fail(
          Errors.invalidField("id", "must be contact:<uuid>, company:<uuid> or deal:<uuid> as returned by search")
        )
      }
      const fullId = `${parsed.kind}:${parsed.uuid}`
      switch (parsed.kind) {
        case "contact": {
          const contact = yield* Effect.flatMap(Contacts.Contacts, (service) => service.get(organisation, parsed.uuid))
          const names = yield* companyNames(organisation, [contact])
          const company = contact.company_id === null ? null : (names.get(contact.company_id) ?? null)
          return {
            id: fullId,
            type: parsed.kind,
            title: contactTitle(contact),
            text: lines(contact, [["company", company]]),
            metadata: contact,
            url: null
          }
        }
        case "company": {
          const company = yield* Effect.flatMap(Companies.Companies, (service) =>
            service.get(organisation, parsed.uuid)
          )
          return {
            id: fullId,
            type: parsed.kind,
            title: company.name,
            text: lines(company),
            metadata: company,
            url: null
          }
        }
        case "deal": {
          const deal = yield* Effect.flatMap(Deals.Deals, (service) => service.get(organisation, parsed.uuid))
          const { pipeline, stage } = stageOf(organisation, deal)
          return {
            id: fullId,
            type: parsed.kind,
            title: deal.title,
            text: lines(deal, [
              ["pipeline", pipeline?.name ?? null],
              ["stage", stage?.name ?? null]
            ]),
            metadata: deal,
            url: null
          }
        }
      }
    })
})

export const searchTools = [search, fetchRecord]
