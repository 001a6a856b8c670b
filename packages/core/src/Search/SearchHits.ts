/**
 * How a record reads in a search across contexts, as pure rules: one id naming one record of one
 * kind (`contact:<uuid>`, `company:<uuid>`, `deal:<uuid>`), a title, a short snippet, every field
 * as a readable line, and the kinds' results taken in turn.
 */
import type { Company } from "../Companies/CompanySchemas.js"
import type { Contact } from "../Contacts/ContactSchemas.js"
import type { Deal } from "../Deals/DealSchemas.js"
import { IdInput } from "../Wire.js"

export type Kind = "contact" | "company" | "deal"

/** One result of a search: `id` is what `Search.fetch` takes. */
export interface SearchHit {
  readonly id: string
  readonly type: Kind
  readonly title: string
  readonly text: string
}

const present = (values: ReadonlyArray<string | null | undefined>, separator = " · "): string =>
  values.filter((value): value is string => value != null && value !== "").join(separator)

export const contactTitle = (contact: Contact): string =>
  present([contact.first_name, contact.last_name], " ") || contact.email || contact.phone || "(unnamed contact)"

export const contactSnippet = (contact: Contact, companyName: string | null): string =>
  present([contact.email, contact.phone, companyName, contact.status])

export const companySnippet = (company: Company): string =>
  present([company.domain, company.email, present([company.city, company.country], ", ")])

const money = (deal: Deal): string | null => (deal.value === null ? null : `${deal.value} ${deal.currency}`)

/** `stageName` is the name of the deal's stage, when the settings still have it. */
export const dealSnippet = (deal: Deal, stageName: string | undefined): string =>
  present([
    `${stageName ?? deal.status_id} (${deal.status_kind})`,
    money(deal),
    deal.expected_close_date === null ? null : `expected close ${deal.expected_close_date}`
  ])

/** Each field as a `field: value` line after `extra`; objects as JSON, absent values as `-`. */
export const fieldLines = (record: object, extra: ReadonlyArray<readonly [string, string | null]> = []): string =>
  [
    ...extra,
    ...Object.entries(record).map(
      ([field, value]) =>
        [field, value === null ? null : typeof value === "object" ? JSON.stringify(value) : String(value)] as const
    )
  ]
    .map(([field, value]) => `${field}: ${value ?? "-"}`)
    .join("\n")

/** One of each list in turn, each list in its own order, until `limit` results. */
export const interleave = <A>(lists: ReadonlyArray<ReadonlyArray<A>>, limit: number): Array<A> => {
  const out: Array<A> = []
  for (let index = 0; out.length < limit && lists.some((list) => index < list.length); index++) {
    for (const list of lists) {
      if (index < list.length && out.length < limit) out.push(list[index]!)
    }
  }
  return out
}

const RECORD_ID = /^(contact|company|deal):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i

/** The kind and uuid a search result's id names (surrounding space and the kind's case aside). */
export const parseRecordId = (id: string): { readonly kind: Kind; readonly uuid: string } | undefined => {
  const match = RECORD_ID.exec(id.trim())
  if (match === null) return undefined
  const uuid = IdInput.safeParse(match[2])
  return uuid.success ? { kind: match[1]!.toLowerCase() as Kind, uuid: uuid.data } : undefined
}
