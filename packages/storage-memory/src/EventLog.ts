/**
 * The event history in memory. Ids come from one store-wide counter; since units of work are
 * serialised and readers outside a unit see only committed state, ids become visible in order.
 */
import { type Errors, Events } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Iterable from "effect/Iterable"
import * as Order from "effect/Order"
import * as RedBlackTree from "effect/RedBlackTree"
import { copy, copyOut, instant, read, type Store, slot, tenant, withTenant, write } from "./internal/Store.js"
import { deliveriesFor, deliveryRows } from "./WebhookRepository.js"

/** Each organisation's events by id, so `after` is one descent. */
export const history = slot("events", RedBlackTree.empty<bigint, Events.EventEnvelope>(Order.bigint), {
  entries: (tree) => Iterable.map(tree, ([id, envelope]) => [id.toString(), envelope] as const),
  fromEntries: (entries) =>
    RedBlackTree.fromIterable(
      entries.map(([id, envelope]) => [BigInt(id), envelope as Events.EventEnvelope] as const),
      Order.bigint
    )
})

export const make = (store: Store): Context.Tag.Service<typeof Events.EventLog> =>
  Events.EventLog.of({
    append: (organisationId, input, at) =>
      input.length === 0
        ? Effect.void
        : Effect.flatMap(copy(input), (events) =>
            write(store, (state) => {
              const t = tenant(state, organisationId)
              let tree = history.get(t)
              let id = state.lastEventId
              const appended: Array<Events.EventEnvelope> = []
              for (const event of events) {
                id += 1n
                const envelope = { id: id.toString(), event: event.event, data: event.data, created_at: at }
                tree = RedBlackTree.insert(tree, id, envelope)
                appended.push(envelope)
              }
              // The webhook outbox, in the same atomic change: a rolled-back unit delivers nothing.
              const deliveries = deliveriesFor(state, t, appended)
              return [
                Either.right<void>(undefined),
                {
                  ...withTenant(state, organisationId, deliveryRows.set(history.set(t, tree), deliveries)),
                  lastEventId: id
                }
              ]
            })
          ),

    after: (organisationId, query) =>
      read(store, (state) => {
        const out: Array<Events.EventEnvelope> = []
        for (const [, envelope] of RedBlackTree.greaterThan(history.get(tenant(state, organisationId)), query.since)) {
          if (query.event !== undefined && envelope.event !== query.event) continue
          out.push(copyOut(envelope))
          if (out.length > query.limit) break
        }
        return out
      }),

    purgeBefore: (at) =>
      write<number, Errors.StorageError>(store, (state) => {
        const cutoff = instant(at)
        let purged = 0
        let tenants = state.tenants
        for (const [organisationId, t] of state.tenants) {
          const events = history.get(t)
          let tree = events
          for (const [id, envelope] of events) {
            if (instant(envelope.created_at) < cutoff) {
              tree = RedBlackTree.removeFirst(tree, id)
              purged++
            }
          }
          if (tree !== events) tenants = HashMap.set(tenants, organisationId, history.set(t, tree))
        }
        return [Either.right(purged), purged === 0 ? state : { ...state, tenants }]
      })
  })
