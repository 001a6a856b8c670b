/** Provider leads in memory: claimed and recorded inside one unit of work, which the store serialises. */
import { Leads } from "@crm/core"
import type * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { copyOut, type Store, slot, tenant, withTenant, write } from "./internal/Store.js"

/** Provider leads by provider and provider id; null while claimed by the running unit of work. */
const leads = slot("leads", HashMap.empty<string, Leads.LeadReceived | null>())

// One key for the pair; JSON keeps them apart whatever characters either holds.
const keyOf = (provider: string, externalId: string) => JSON.stringify([provider, externalId])

export const make = (store: Store): Context.Tag.Service<typeof Leads.LeadRepository> =>
  Leads.LeadRepository.of({
    claim: (organisationId, provider, externalId) =>
      write(store, (state) => {
        const t = tenant(state, organisationId)
        const key = keyOf(provider, externalId)
        const existing = HashMap.get(leads.get(t), key)
        if (Option.isSome(existing))
          return [Either.right(Option.map(Option.fromNullable(existing.value), copyOut)), state]
        return [
          Either.right(Option.none()),
          withTenant(
            state,
            organisationId,
            leads.update(t, (held) => HashMap.set(held, key, null))
          )
        ]
      }),
    record: (organisationId, lead) =>
      write(store, (state) => {
        const t = tenant(state, organisationId)
        const key = keyOf(lead.provider, lead.lead_id)
        return [
          Either.right(undefined),
          withTenant(
            state,
            organisationId,
            leads.update(t, (held) => HashMap.set(held, key, copyOut(lead)))
          )
        ]
      })
  })
