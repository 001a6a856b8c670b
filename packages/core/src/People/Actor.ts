/**
 * Who acts, and from where: what the audit trail records of a change. Its own module, because the
 * services that record changes (`Access`, `Webhooks`) are themselves what `People` builds on.
 */
import type { ActorRecord } from "./PeopleRepository.js"

export interface Actor extends ActorRecord {
  readonly address: string | null
}

export const operator = (address: string | null): Actor => ({ kind: "operator", id: null, label: "operator", address })
export const system: Actor = { kind: "system", id: null, label: "system", address: null }
