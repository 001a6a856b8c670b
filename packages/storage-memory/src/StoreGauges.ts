/** The backlogs in memory: a walk over every organisation's rows, which is what a scrape can afford here. */
import { Health } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as RedBlackTree from "effect/RedBlackTree"
import { history } from "./EventLog.js"
import { instant, read, type State, type Store, type Tenant } from "./internal/Store.js"
import { mail } from "./MailOutbox.js"
import { deliveryRows } from "./WebhookRepository.js"

const backlog = <A>(
  state: State,
  rows: (tenant: Tenant) => Iterable<A>,
  waiting: (row: A) => string | undefined
): Health.Backlog => {
  let count = 0
  let oldestAt: string | null = null
  for (const tenant of HashMap.values(state.tenants)) {
    for (const row of rows(tenant)) {
      const createdAt = waiting(row)
      if (createdAt === undefined) continue
      count++
      if (oldestAt === null || instant(createdAt) < instant(oldestAt)) oldestAt = createdAt
    }
  }
  return { count, oldestAt }
}

export const make = (store: Store): Context.Tag.Service<typeof Health.StoreGauges> =>
  Health.StoreGauges.of({
    webhookDeliveries: read(store, (state) =>
      backlog(
        state,
        (tenant) => HashMap.values(deliveryRows.get(tenant)),
        ({ delivery }) => (delivery.status === "pending" ? delivery.created_at : undefined)
      )
    ),
    mail: read(store, (state) =>
      backlog(
        state,
        (tenant) => HashMap.values(mail.get(tenant)),
        (message) => (message.status === "queued" ? message.created_at : undefined)
      )
    ),
    eventsHead: read(store, (state) => {
      let head = 0n
      for (const tenant of HashMap.values(state.tenants)) {
        const last = RedBlackTree.last(history.get(tenant))
        if (Option.isSome(last) && last.value[0] > head) head = last.value[0]
      }
      return head
    }),
    connections: Effect.succeed(Option.none())
  })
