import * as Context from "effect/Context"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { RecordStore } from "../Resource.js"
import type { TicketChannel, TicketRecord, TicketStatus } from "./TicketSchemas.js"

export interface TicketFilter {
  readonly status?: TicketStatus
  readonly channel?: TicketChannel
  readonly contactId?: ContactId
  /** Only tickets that are (`value` true) or are not (false) breached at `asOf`, by `TicketSla.isBreached`. */
  readonly breached?: { readonly asOf: string; readonly value: boolean }
}

/** The tickets of one organisation. */
export class TicketRepository extends Context.Tag("@crm/core/TicketRepository")<
  TicketRepository,
  Pick<RecordStore<TicketRecord, TicketFilter>, "insert" | "get" | "getForUpdate" | "update" | "list">
>() {}
