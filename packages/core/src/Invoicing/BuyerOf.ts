/** The addressee of a document: what an invoice freezes into `buyer`, and what a quote's PDF addresses. */
import type { Company } from "../Companies/CompanySchemas.js"
import type { Contact } from "../Contacts/ContactSchemas.js"
import type { Buyer } from "./InvoiceSchemas.js"

const fullName = (contact: Contact) =>
  [contact.first_name, contact.last_name].filter((part) => part !== null && part !== "").join(" ") || null

/** The company when there is one, else the contact. */
export const buyerOf = (contact: Contact | undefined, company: Company | undefined): Buyer => ({
  name: company?.name ?? (contact === undefined ? null : fullName(contact)),
  email: company?.email ?? contact?.email ?? null,
  vat_number: company?.vat_number ?? null,
  city: company?.city ?? null,
  country: company?.country ?? null
})
