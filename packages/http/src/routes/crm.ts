import { Companies, Contacts } from "@crm/core"
import { resourceRoutes } from "./resource.js"

export const contactRoutes = resourceRoutes({
  service: Contacts.Contacts,
  plural: "contacts",
  singular: "contact",
  pascal: "Contact",
  schemas: {
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
})

export const companyRoutes = resourceRoutes({
  service: Companies.Companies,
  plural: "companies",
  singular: "company",
  pascal: "Company",
  schemas: {
    create: Companies.CompanyCreate,
    patch: Companies.CompanyPatch,
    record: Companies.Company,
    page: Companies.CompanyPage,
    query: Companies.CompanyListQuery
  },
  createErrors: ["validation_failed", "plan_refused"],
  updateErrors: []
})
