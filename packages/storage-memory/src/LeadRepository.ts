/** Provider leads in memory: claimed and recorded inside one unit of work, which the store serialises. */
import { Leads } from "@crm/core"
import type * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { copyOut, type Store, tenant, withTenant, write } from "./internal/Store.js"

// One key for the pair; JSON keeps them apart whatever characters either holds.
const keyOf = (provider: string, externalId: string) => JSON.stringify([provider, externalId])

export const make = (store: Store): Context.Tag.Service<typeof Leads.LeadRepository> =>
  Leads.LeadRepository.of({
    claim: (organisationId, provider, externalId) =>
      write(store, (state) => {
        const t = tenant(state, organisationId)
        const key = keyOf(provider, externalId)
        const existing = HashMap.get(t.leads, key)
        if (Option.isSome(existing))
          return [Either.right(Option.map(Option.fromNullable(existing.value), copyOut)), state]
        return [
          Either.right(Option.none()),
          withTenant(state, organisationId, { ...t, leads: HashMap.set(t.leads, key, null) })
        ]
      }),
    record: (organisationId, lead) =>
      write(store, (state) => {
        const t = tenant(state, organisationId)
        const key = keyOf(lead.provider, lead.lead_id)
        return [
          Either.right(undefined),
          withTenant(state, organisationId, { ...t, leads: HashMap.set(t.leads, key, copyOut(lead)) })
        ]
      })
  })
