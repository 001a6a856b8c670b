/** The served route table: REST under /api/v1, the admin API under /admin/v1, health checks at the root. */

import * as OpenApi from "./OpenApi.js"
import { type Mounted, mount } from "./Router.js"
import { adminRoutes } from "./routes/admin.js"
import { companyRoutes, contactRoutes } from "./routes/crm.js"
import { dealRoutes } from "./routes/deals.js"
import { formRoutes } from "./routes/forms.js"
import { healthRoutes } from "./routes/health.js"
import { adminHookRoutes, hookRoutes } from "./routes/hooks.js"
import { importRoutes } from "./routes/import.js"
import { invoiceRoutes } from "./routes/invoices.js"
import { adminMailRoutes } from "./routes/mail.js"
import { eventsRoute, meRoute, openApiRoute } from "./routes/meta.js"
import { orderRoutes } from "./routes/orders.js"
import { productRoutes } from "./routes/products.js"
import { purchaseOrderRoutes } from "./routes/purchaseOrders.js"
import { quoteRoutes } from "./routes/quotes.js"
import { recordRoutes } from "./routes/records.js"
import { returnRoutes } from "./routes/returns.js"
import { taskRoutes } from "./routes/tasks.js"
import { ticketRoutes } from "./routes/tickets.js"
import { transferRoutes } from "./routes/transfer.js"
import { visitRoutes } from "./routes/visits.js"

export const API_PREFIX = "/api/v1"
export const ADMIN_PREFIX = "/admin/v1"

export interface TableOptions {
  /**
   * The OpenAPI document as JSON text, made beforehand from this same table (`crm openapi` at build
   * time): a server that serves it spares making it, about a tenth of a second, at start.
   */
  readonly openApiDocument?: string
}

export const makeTable = (options: TableOptions = {}): ReadonlyArray<Mounted> => {
  let cached = options.openApiDocument
  const table: Array<Mounted> = [
    ...mount(API_PREFIX, [
      ...contactRoutes,
      ...companyRoutes,
      ...dealRoutes,
      ...taskRoutes,
      ...recordRoutes,
      ...formRoutes,
      ...visitRoutes,
      ...quoteRoutes,
      ...invoiceRoutes,
      ...productRoutes,
      ...orderRoutes,
      ...returnRoutes,
      ...purchaseOrderRoutes,
      ...ticketRoutes,
      ...hookRoutes,
      meRoute,
      eventsRoute,
      openApiRoute(() => (cached ??= JSON.stringify(OpenApi.document(table))))
    ]),
    ...mount(ADMIN_PREFIX, [
      ...adminRoutes,
      ...importRoutes,
      ...transferRoutes,
      ...adminMailRoutes,
      ...adminHookRoutes
    ]),
    ...mount("", healthRoutes)
  ]
  return table
}

export const table: ReadonlyArray<Mounted> = makeTable()
export const openApiDocument = () => OpenApi.document(table)
