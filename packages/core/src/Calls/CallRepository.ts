import * as Context from "effect/Context"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { RecordStore } from "../Resource.js"
import type { Call, CallDirection, CallStatus } from "./CallSchemas.js"

export interface CallFilter {
  readonly contactId?: ContactId
  readonly direction?: CallDirection
  readonly status?: CallStatus
}

/** The phone calls of one organisation. */
export class CallRepository extends Context.Tag("@crm/core/CallRepository")<
  CallRepository,
  Pick<RecordStore<Call, CallFilter>, "insert" | "get" | "getForUpdate" | "update" | "list">
>() {}
