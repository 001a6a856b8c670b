/** The served route table: REST under /api/v1, the admin API under /admin/v1. */

import * as OpenApi from "./OpenApi.js"
import { type Mounted, mount } from "./Router.js"
import { adminRoutes } from "./routes/admin.js"
import { companyRoutes, contactRoutes } from "./routes/crm.js"
import { dealRoutes } from "./routes/deals.js"
import { invoiceRoutes } from "./routes/invoices.js"
import { eventsRoute, meRoute, openApiRoute } from "./routes/meta.js"
import { quoteRoutes } from "./routes/quotes.js"
import { taskRoutes } from "./routes/tasks.js"

export const API_PREFIX = "/api/v1"
export const ADMIN_PREFIX = "/admin/v1"

const build = (): ReadonlyArray<Mounted> => {
  let cached: unknown
  const table: Array<Mounted> = [
    ...mount(API_PREFIX, [
      ...contactRoutes,
      ...companyRoutes,
      ...dealRoutes,
      ...taskRoutes,
      ...quoteRoutes,
      ...invoiceRoutes,
      meRoute,
      eventsRoute,
      openApiRoute(() => (cached ??= OpenApi.document(table)))
    ]),
    ...mount(ADMIN_PREFIX, adminRoutes)
  ]
  return table
}

export const table: ReadonlyArray<Mounted> = build()
export const openApiDocument = () => OpenApi.document(table)
