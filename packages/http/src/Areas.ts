/**
 * Every area of the API, in the order the table serves and the document lists them: a new area
 * joins here, once, and brings its routes and the names of its shapes with it (`Area`). The router
 * tries a path's candidates in this order, so a new area goes after the hot ones.
 */
import type { Area } from "./Area.js"
import { adminArea } from "./routes/admin.js"
import { authArea } from "./routes/auth.js"
import { crmArea } from "./routes/crm.js"
import { dealsArea } from "./routes/deals.js"
import { formsArea } from "./routes/forms.js"
import { healthArea } from "./routes/health.js"
import { hooksArea } from "./routes/hooks.js"
import { importArea } from "./routes/import.js"
import { invoicesArea } from "./routes/invoices.js"
import { mailArea } from "./routes/mail.js"
import { metaArea } from "./routes/meta.js"
import { notesArea } from "./routes/notes.js"
import { ordersArea } from "./routes/orders.js"
import { productsArea } from "./routes/products.js"
import { purchaseOrdersArea } from "./routes/purchaseOrders.js"
import { quotesArea } from "./routes/quotes.js"
import { recordsArea } from "./routes/records.js"
import { returnsArea } from "./routes/returns.js"
import { settingsArea } from "./routes/settings.js"
import { tasksArea } from "./routes/tasks.js"
import { ticketsArea } from "./routes/tickets.js"
import { transferArea } from "./routes/transfer.js"
import { visitsArea } from "./routes/visits.js"

export const areas: ReadonlyArray<Area> = [
  crmArea,
  dealsArea,
  tasksArea,
  recordsArea,
  formsArea,
  visitsArea,
  quotesArea,
  invoicesArea,
  productsArea,
  ordersArea,
  returnsArea,
  purchaseOrdersArea,
  ticketsArea,
  hooksArea,
  metaArea,
  notesArea,
  adminArea,
  importArea,
  transferArea,
  mailArea,
  authArea,
  settingsArea,
  healthArea
]
