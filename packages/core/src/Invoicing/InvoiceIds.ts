import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of an invoice: branded, so that no other kind of id (or plain string) is taken for one. */
export const InvoiceId = IdInput.brand<"InvoiceId">()
export type InvoiceId = z.output<typeof InvoiceId>

/** The id of a payment: branded, so that no other kind of id (or plain string) is taken for one. */
export const PaymentId = IdInput.brand<"PaymentId">()
export type PaymentId = z.output<typeof PaymentId>
