import { Companies, Contacts } from "@crm/core"
import { resourceRoutes } from "./resource.js"

export const contactRoutes = resourceRoutes(
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
)

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
