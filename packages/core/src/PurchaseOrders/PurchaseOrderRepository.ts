import * as Context from "effect/Context"
import type { RecordStore } from "../Resource.js"
import type { PurchaseOrder, PurchaseOrderStatus } from "./PurchaseOrderSchemas.js"

export interface PurchaseOrderFilter {
  readonly status?: PurchaseOrderStatus
}

/** The purchase orders of one organisation. */
export class PurchaseOrderRepository extends Context.Tag("@crm/core/PurchaseOrderRepository")<
  PurchaseOrderRepository,
  Pick<RecordStore<PurchaseOrder, PurchaseOrderFilter>, "insert" | "get" | "getForUpdate" | "update" | "list">
>() {}
