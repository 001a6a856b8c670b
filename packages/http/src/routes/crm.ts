import { Companies, Contacts } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { route, write } from "../Route.js"
import { actorOf } from "./principal.js"
import { resourceRoutes } from "./resource.js"

const eraseContact = route({
  method: "POST",
  path: "/contacts/{id}/erase",
  params: { id: Contacts.ContactId },
  operationId: "eraseContact",
  tag: "contacts",
  guard: write,
  summary:
    "Erase a person for good (the right to be forgotten), live or archived: the contact's personal fields are removed, not archived, and so are the copies in the event history and webhook deliveries (payload keys stay, values become null), mail to its address, its form submissions' answers, visits, notes, survey comments, call numbers and transcripts, ticket requester and text, bookings and draft invoices' buyer; the contact then answers 404 and its email is free. Issued invoices keep their frozen buyer for the books and are listed in `kept` with the reason. Emits contact.erased with the id only. Idempotent: a repeat answers the same 200 and emits nothing; an id the organisation never had is 404",
  success: { status: 200, schema: Contacts.ContactErasure, description: "what was erased, and what was kept and why" },
  errors: ["not_found"],
  handle: ({ principal, params }) =>
    Effect.flatMap(Contacts.Contacts, (contacts) =>
      contacts.erase(principal.organisation, params.id, actorOf(principal))
    ).pipe(Effect.map(ok))
})

export const contactRoutes = [
  ...resourceRoutes(
    {
      service: Contacts.Contacts,
      plural: "contacts",
      singular: "contact",
      pascal: "Contact",
      schemas: {
        id: Contacts.ContactId,

        create: Contacts.ContactCreate,
        patch: Contacts.ContactPatch,
        record: Contacts.Contact,
        page: Contacts.ContactPage,
        query: Contacts.ContactListQuery
      },
      createErrors: ["validation_failed", "email_already_exists", "plan_refused"],
      updateErrors: ["email_already_exists"],
      notes: {
        create: "Create a contact (one of first_name, last_name or email is required)",
        archive: "Archive a contact: it answers 404 from then on and its email is free again"
      }
    },
    {
      schema: Contacts.ContactUpsert,
      key: "email",
      errors: ["email_already_exists", "plan_refused"],
      note: "Create the live contact with this address (201, contact.created) or change only the fields sent (200; contact.updated only when a field changed). Concurrent upserts of one address create one contact"
    }
  ),
  eraseContact
]

export const companyRoutes = resourceRoutes(
  {
    service: Companies.Companies,
    plural: "companies",
    singular: "company",
    pascal: "Company",
    schemas: {
      id: Companies.CompanyId,

      create: Companies.CompanyCreate,
      patch: Companies.CompanyPatch,
      record: Companies.Company,
      page: Companies.CompanyPage,
      query: Companies.CompanyListQuery
    },
    createErrors: ["validation_failed", "plan_refused"],
    updateErrors: []
  },
  {
    schema: Companies.CompanyUpsert,
    key: "domain",
    errors: ["plan_refused"],
    note: "Change only the fields sent of the oldest live company with this domain, compared case-insensitively (200; company.updated only when a field changed), or create one (201, company.created; name is then required). Concurrent upserts of one domain create one company"
  }
)

export const crmArea: Area = {
  api: [...contactRoutes, ...companyRoutes],
  schemaNames: [
    ...named(Contacts, "Contact", "ContactCreate", "ContactPatch", "ContactPage", "ContactStatus"),
    ...named(Companies, "Company", "CompanyCreate", "CompanyPatch", "CompanyPage")
  ]
}
