import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { CompanyId } from "../Companies/CompanyIds.js"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { InvoiceId } from "./InvoiceIds.js"
import type { Invoice, InvoiceKind, InvoiceStatus, Payment } from "./InvoiceSchemas.js"

export interface InvoiceFilter {
  readonly status?: InvoiceStatus
  readonly kind?: InvoiceKind
  readonly contactId?: ContactId
  readonly companyId?: CompanyId
}

/** Invoices of one organisation and their payments. */
export class InvoiceRepository extends Context.Tag("@crm/core/InvoiceRepository")<
  InvoiceRepository,
  Pick<RecordStore<Invoice, InvoiceFilter>, "insert" | "get" | "getForUpdate" | "update" | "list"> & {
    /** The organisation owning the invoice: the admin API names only the invoice's id. */
    readonly organisationOf: (id: InvoiceId) => Effect.Effect<Option.Option<OrganisationId>, StorageError>
    readonly addPayment: (organisationId: OrganisationId, payment: Payment) => Effect.Effect<void, StorageError>
    /** Oldest first. */
    readonly payments: (
      organisationId: OrganisationId,
      invoiceId: InvoiceId
    ) => Effect.Effect<ReadonlyArray<Payment>, StorageError>
    /** Issued or partly paid invoices due before `today`, for the overdue job. */
    readonly dueBefore: (
      organisationId: OrganisationId,
      today: string
    ) => Effect.Effect<ReadonlyArray<Invoice>, StorageError>
    /**
     * Analytics: live invoices with status issued, partial or overdue that are neither proformas nor stornos,
     * optionally of one contact or company, in no particular order.
     */
    readonly unpaid: (
      organisationId: OrganisationId,
      filter: Pick<InvoiceFilter, "contactId" | "companyId">
    ) => Effect.Effect<ReadonlyArray<Invoice>, StorageError>
  }
>() {}
