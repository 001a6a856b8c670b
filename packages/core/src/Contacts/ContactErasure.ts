/**
 * Erasure of a person (the GDPR right to be forgotten): which stored copies of a contact's personal
 * data are removed, how, and what stays for the books. Pure rules that both storage adapters apply
 * inside one unit of work, so memory, PGlite and PostgreSQL erase exactly the same things.
 */
import { z } from "zod"
import type { Buyer } from "../Invoicing/InvoiceSchemas.js"
import { ContactId } from "./ContactIds.js"
import type { Contact } from "./ContactSchemas.js"

export const ErasureKept = z.object({
  what: z.enum(["invoice"]).describe("the kind of record that still holds a copy of the person's data"),
  id: z.uuid(),
  reason: z.string().describe("why the copy stays")
})
export type ErasureKept = z.infer<typeof ErasureKept>

export const ContactErasure = z.object({
  id: ContactId,
  erased: z.literal(true),
  kept: z
    .array(ErasureKept)
    .describe("copies that stay, each with its reason; the same list on every repeat of the erasure")
})
export type ContactErasure = z.infer<typeof ContactErasure>

/** What one erasure did in storage: `changed` is false when there was nothing left to remove. */
export interface ErasureOutcome {
  readonly changed: boolean
  readonly kept: ReadonlyArray<ErasureKept>
}

export const ISSUED_INVOICE_REASON =
  "an issued invoice is an accounting document: its frozen buyer must stay unchanged for as long as the law keeps the books"

/**
 * An issued invoice (it has a number, whatever its status since) keeps its buyer; a draft, which
 * is no accounting document yet, loses what it copied from the contact.
 */
export const keepsBuyer = (invoice: { readonly number?: string | undefined | null }): boolean =>
  invoice.number !== undefined && invoice.number !== null

/** The contact's own personal fields, erased. */
const ERASED_CONTACT = {
  first_name: null,
  last_name: null,
  email: null,
  phone: null,
  source: null,
  custom: {}
} as const

/** The erased value of each personal key an event payload of the catalogue may carry. */
const ERASED_PAYLOAD: Readonly<Record<string, unknown>> = {
  ...ERASED_CONTACT,
  fields: {},
  subject: null,
  requester_email: null,
  from_number: null,
  to_number: null,
  recording_url: null,
  transcript: null,
  summary: null,
  comment: null
}

/** Whether a payload of `event` is about the contact: its own events, or any naming it in `contact_id`. */
export const namesContact = (event: string, data: Readonly<Record<string, unknown>>, contactId: string): boolean =>
  data.contact_id === contactId || (event.startsWith("contact.") && data.id === contactId)

/**
 * The payload with every personal value erased; keys stay, so a payload still has exactly the
 * catalogue's keys. Returns the payload itself when it holds nothing to erase.
 */
export const erasePayload = (data: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  let out: Record<string, unknown> | undefined
  for (const key of Object.keys(data)) {
    if (!Object.hasOwn(ERASED_PAYLOAD, key)) continue
    const erased = ERASED_PAYLOAD[key]
    if (JSON.stringify(data[key]) === JSON.stringify(erased)) continue
    out ??= { ...data }
    out[key] = erased
  }
  return out ?? data
}

/** The contact row as it stays: its id, status, links and times, no personal field. */
export const erasedContact = (contact: Contact, at: string): Contact => ({
  ...contact,
  ...ERASED_CONTACT,
  updated_at: at
})

/** Whether a contact row still holds anything `erasedContact` removes. */
export const holdsPersonalData = (contact: Contact): boolean =>
  [contact.first_name, contact.last_name, contact.email, contact.phone, contact.source].some((v) => v !== null) ||
  Object.keys(contact.custom).length > 0

/**
 * A draft's buyer without what it copied from the contact: without a company, name and address
 * are the person's; with one, only an address that is the contact's own is.
 */
export const eraseBuyer = (
  invoice: { readonly company_id: string | null; readonly buyer: Buyer },
  contact: Contact
): Buyer =>
  invoice.company_id === null
    ? { ...invoice.buyer, name: null, email: null }
    : { ...invoice.buyer, email: invoice.buyer.email === contact.email ? null : invoice.buyer.email }
