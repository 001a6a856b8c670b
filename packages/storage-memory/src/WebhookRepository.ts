/**
 * Webhook subscriptions and their outbox in memory. The outbox rows are written by `EventLog.append`
 * (see EventLog.ts); here they are claimed, attempted and listed. One store serves one process, so a
 * claim is one atomic change; leases still expire, as on PostgreSQL, so the semantics match.
 */
import { type Events, Ids, type Organisation, Webhooks } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import {
  copy,
  copyOut,
  instant,
  newestFirst,
  read,
  type State,
  type Store,
  slot,
  type Tenant,
  tenant,
  withTenant,
  write
} from "./internal/Store.js"

export interface HookRow {
  readonly record: Webhooks.HookRecord
  /** The dispatcher's lease (epoch ms) and who holds it. */
  readonly leaseUntil: number | null
  readonly leaseToken: string | null
}

export interface DeliveryRow {
  readonly delivery: Omit<Webhooks.Delivery, "attempts">
  readonly body: string
  readonly attempts: ReadonlyArray<Webhooks.DeliveryAttempt>
}

const hookRows = slot("webhook_hooks", HashMap.empty<string, HookRow>(), {
  entries: (rows) => rows,
  fromEntries: (entries) => HashMap.fromIterable(entries as ReadonlyArray<readonly [string, HookRow]>),
  // An import gives a hook exported without its secret a new one (see `TransferStore`).
  withoutSecrets: (row) => {
    const { record } = row as HookRow
    return { ...(row as HookRow), record: { ...record, secret: null, previous_secret: null } }
  }
})
/** The webhook outbox: one row per event and matching hook, written by the event log's `append`. */
export const deliveryRows = slot("webhook_deliveries", HashMap.empty<string, DeliveryRow>())

const ownedHook = (t: Tenant, owner: Webhooks.HookOwner, id: string): Option.Option<HookRow> =>
  HashMap.get(hookRows.get(t), id).pipe(Option.filter((row) => row.record.key_id === owner.keyId))

const toDelivery = (row: DeliveryRow): Webhooks.Delivery => copyOut({ ...row.delivery, attempts: [...row.attempts] })

/** Newest event first, ties (none in practice: one row per event and hook) by id. */
const newestEventFirst = (a: DeliveryRow, b: DeliveryRow): number => {
  const byEvent = BigInt(b.delivery.event_id) - BigInt(a.delivery.event_id)
  if (byEvent !== 0n) return byEvent > 0n ? 1 : -1
  return a.delivery.id < b.delivery.id ? 1 : a.delivery.id > b.delivery.id ? -1 : 0
}

const isDue = (row: DeliveryRow, now: number): boolean =>
  row.delivery.status === "pending" &&
  (row.delivery.attempt_count === 0 ||
    (row.delivery.next_attempt_at !== null && instant(row.delivery.next_attempt_at) <= now))

const updateTenant = (state: State, organisationId: Organisation.OrganisationId, f: (t: Tenant) => Tenant): State =>
  withTenant(state, organisationId, f(tenant(state, organisationId)))

/** A revoked key's hooks get nothing more: its integration has been cut off. */
const keyIsLive = (state: State, keyId: string): boolean =>
  Option.exists(HashMap.get(state.keys, keyId), (key) => key.revoked_at === null)

/** The outbox rows `append` adds for freshly appended events: one per hook `Webhooks.receives` selects. */
export const deliveriesFor = (
  state: State,
  t: Tenant,
  events: ReadonlyArray<Events.EventEnvelope>
): HashMap.HashMap<string, DeliveryRow> => {
  let deliveries = deliveryRows.get(t)
  for (const envelope of events) {
    const body = JSON.stringify(envelope)
    for (const hook of HashMap.values(hookRows.get(t))) {
      if (!Webhooks.receives(hook.record, keyIsLive(state, hook.record.key_id), envelope.event)) continue
      const id = Ids.brand(Webhooks.DeliveryId, crypto.randomUUID())
      deliveries = HashMap.set(deliveries, id, {
        delivery: {
          id,
          hook_id: hook.record.id,
          event_id: envelope.id,
          event: envelope.event,
          status: "pending",
          attempt_count: 0,
          next_attempt_at: envelope.created_at,
          created_at: envelope.created_at
        },
        body,
        attempts: []
      })
    }
  }
  return deliveries
}

/** A disabled hook will send nothing more: what it still had pending has failed. */
const failPending = (deliveries: HashMap.HashMap<string, DeliveryRow>, hookId: string) =>
  HashMap.map(deliveries, (row) =>
    row.delivery.hook_id === hookId && row.delivery.status === "pending"
      ? { ...row, delivery: { ...row.delivery, status: "failed" as const, next_attempt_at: null } }
      : row
  )

export const make = (store: Store): Context.Tag.Service<typeof Webhooks.WebhookRepository> =>
  Webhooks.WebhookRepository.of({
    keyOrganisation: (keyId) =>
      read(store, (state) =>
        HashMap.get(state.keys, keyId).pipe(
          Option.filter((key) => key.revoked_at === null),
          Option.map((key) => key.organisation_id)
        )
      ),

    hookOwner: (hookId) =>
      read(store, (state) => {
        for (const t of HashMap.values(state.tenants)) {
          const row = HashMap.get(hookRows.get(t), hookId)
          if (Option.isNone(row)) continue
          const { organisation_id, key_id } = row.value.record
          return keyIsLive(state, key_id)
            ? Option.some({ organisationId: organisation_id, keyId: key_id })
            : Option.none()
        }
        return Option.none()
      }),

    insert: (input, limit) =>
      Effect.flatMap(copy(input), (hook) =>
        write(store, (state) => {
          const t = tenant(state, hook.organisation_id)
          let held = 0
          for (const row of HashMap.values(hookRows.get(t))) if (row.record.key_id === hook.key_id) held++
          if (held >= limit) return [Either.right(false), state]
          const row: HookRow = { record: hook, leaseUntil: null, leaseToken: null }
          return [
            Either.right(true),
            withTenant(
              state,
              hook.organisation_id,
              hookRows.update(t, (rows) => HashMap.set(rows, hook.id, row))
            )
          ]
        })
      ),

    get: (owner, id) =>
      read(store, (state) =>
        Option.map(ownedHook(tenant(state, owner.organisationId), owner, id), (row) => copyOut(row.record))
      ),

    // Units of work are serialised in memory: reading inside one is already exclusive.
    getForUpdate: (owner, id) =>
      read(store, (state) =>
        Option.map(ownedHook(tenant(state, owner.organisationId), owner, id), (row) => copyOut(row.record))
      ),

    update: (input) =>
      Effect.flatMap(copy(input), (hook) =>
        write(store, (state) => [
          Either.right<void>(undefined),
          updateTenant(state, hook.organisation_id, (t) =>
            hookRows.update(t, (rows) => HashMap.modify(rows, hook.id, (row) => ({ ...row, record: hook })))
          )
        ])
      ),

    remove: (owner, id) =>
      write(store, (state) => {
        const t = tenant(state, owner.organisationId)
        if (Option.isNone(ownedHook(t, owner, id))) return [Either.right(false), state]
        const deliveries = HashMap.filter(deliveryRows.get(t), (row) => row.delivery.hook_id !== id)
        return [
          Either.right(true),
          withTenant(
            state,
            owner.organisationId,
            deliveryRows.set(hookRows.update(t, HashMap.remove<string>(id)), deliveries)
          )
        ]
      }),

    list: (owner, page) =>
      read(store, (state) => {
        const records: Array<Webhooks.HookRecord> = []
        for (const row of HashMap.values(hookRows.get(tenant(state, owner.organisationId))))
          if (row.record.key_id === owner.keyId) records.push(row.record)
        return records
          .sort(newestFirst)
          .slice(page.offset, page.offset + page.limit + 1)
          .map(copyOut)
      }),

    deliveries: (owner, hookId, page) =>
      read(store, (state) => {
        const t = tenant(state, owner.organisationId)
        if (Option.isNone(ownedHook(t, owner, hookId))) return []
        return Array.from(HashMap.values(deliveryRows.get(t)))
          .filter((row) => row.delivery.hook_id === hookId)
          .sort(newestEventFirst)
          .slice(page.offset, page.offset + page.limit + 1)
          .map(toDelivery)
      }),

    delivery: (owner, hookId, id) =>
      read(store, (state) => {
        const t = tenant(state, owner.organisationId)
        if (Option.isNone(ownedHook(t, owner, hookId))) return Option.none()
        return HashMap.get(deliveryRows.get(t), id).pipe(
          Option.filter((row) => row.delivery.hook_id === hookId),
          Option.map(toDelivery)
        )
      }),

    failPending: (organisationId, hookId) =>
      write(store, (state) => [
        Either.right<void>(undefined),
        updateTenant(state, organisationId, (t) =>
          HashMap.has(hookRows.get(t), hookId) ? deliveryRows.update(t, (rows) => failPending(rows, hookId)) : t
        )
      ]),

    requeue: (organisationId, deliveryId, at) =>
      write(store, (state) => [
        Either.right<void>(undefined),
        updateTenant(state, organisationId, (t) =>
          Option.match(HashMap.get(deliveryRows.get(t), deliveryId), {
            onNone: () => t,
            onSome: (row) =>
              deliveryRows.update(t, (rows) =>
                HashMap.set(rows, deliveryId, {
                  ...row,
                  delivery: { ...row.delivery, status: "pending" as const, next_attempt_at: at }
                })
              )
          })
        )
      ]),

    claim: (input) =>
      write(store, (state) => {
        const now = instant(input.now)
        const leaseUntil = instant(input.leaseUntil)
        const candidates: Array<{
          organisationId: Organisation.OrganisationId
          row: HookRow
          due: Array<DeliveryRow>
        }> = []
        for (const [organisationId, t] of state.tenants) {
          const dueByHook = new Map<string, Array<DeliveryRow>>()
          for (const delivery of HashMap.values(deliveryRows.get(t))) {
            if (!isDue(delivery, now)) continue
            const due = dueByHook.get(delivery.delivery.hook_id)
            if (due === undefined) dueByHook.set(delivery.delivery.hook_id, [delivery])
            else due.push(delivery)
          }
          for (const row of HashMap.values(hookRows.get(t))) {
            const due = dueByHook.get(row.record.id)
            if (due === undefined || !row.record.active) continue
            if (row.leaseUntil !== null && row.leaseUntil > now) continue
            if (row.record.paused_until !== null && instant(row.record.paused_until) > now) continue
            if (!keyIsLive(state, row.record.key_id)) continue
            due.sort((a, b) => -newestEventFirst(a, b))
            candidates.push({ organisationId, row, due })
          }
        }
        // The hook waiting on the oldest event first, as on PostgreSQL.
        candidates.sort((a, b) => -newestEventFirst(a.due[0]!, b.due[0]!))
        const claimed = candidates.slice(0, input.hooks)
        let next = state
        for (const { organisationId, row } of claimed) {
          next = updateTenant(next, organisationId, (t) =>
            hookRows.update(t, (rows) =>
              HashMap.set(rows, row.record.id, { ...row, leaseUntil, leaseToken: input.token })
            )
          )
        }
        const claims = claimed.map(
          ({ row, due }): Webhooks.Claim => ({
            hook: copyOut(row.record),
            deliveries: due.slice(0, input.perHook).map((delivery) => ({
              id: delivery.delivery.id,
              event_id: delivery.delivery.event_id,
              body: delivery.body,
              attempt_count: delivery.delivery.attempt_count
            }))
          })
        )
        return [Either.right(claims), next]
      }),

    recordAttempt: (input) =>
      Effect.flatMap(copy(input), (record) =>
        write(store, (state) => {
          const t = tenant(state, record.organisationId)
          const row = HashMap.get(hookRows.get(t), record.hookId)
          // Deleted meanwhile: its deliveries went with it.
          if (Option.isNone(row)) return [Either.right(Option.none()), state]
          const hook: Webhooks.HookRecord = {
            ...row.value.record,
            failing_since: record.failingSince,
            unanswered_attempts: record.unansweredAttempts,
            paused_until: record.pausedUntil,
            ...(record.disable === null
              ? {}
              : { active: false, disabled_reason: record.disable, updated_at: record.at })
          }
          const deliveries = HashMap.modify(
            record.disable === null ? deliveryRows.get(t) : failPending(deliveryRows.get(t), record.hookId),
            record.deliveryId,
            (delivery) => ({
              ...delivery,
              delivery: {
                ...delivery.delivery,
                status: record.status,
                attempt_count: record.attemptCount,
                next_attempt_at: record.nextAttemptAt
              },
              attempts: [...delivery.attempts, record.attempt]
            })
          )
          return [
            Either.right(Option.some(copyOut(hook))),
            withTenant(
              state,
              record.organisationId,
              deliveryRows.set(
                hookRows.update(t, (rows) => HashMap.set(rows, record.hookId, { ...row.value, record: hook })),
                deliveries
              )
            )
          ]
        })
      ),

    purgeBefore: (at) =>
      write(store, (state) => {
        const cutoff = instant(at)
        let purged = 0
        let next = state
        for (const [organisationId, t] of state.tenants) {
          const rows = deliveryRows.get(t)
          const kept = HashMap.filter(rows, (row) => instant(row.delivery.created_at) >= cutoff)
          if (HashMap.size(kept) === HashMap.size(rows)) continue
          purged += HashMap.size(rows) - HashMap.size(kept)
          next = withTenant(next, organisationId, deliveryRows.set(t, kept))
        }
        return [Either.right(purged), next]
      }),

    release: (hookId, token) =>
      write(store, (state) => {
        for (const [organisationId, t] of state.tenants) {
          const row = HashMap.get(hookRows.get(t), hookId)
          if (Option.isNone(row)) continue
          if (row.value.leaseToken !== token) return [Either.right<void>(undefined), state]
          return [
            Either.right<void>(undefined),
            withTenant(
              state,
              organisationId,
              hookRows.update(t, (rows) =>
                HashMap.set(rows, hookId, { ...row.value, leaseUntil: null, leaseToken: null })
              )
            )
          ]
        }
        return [Either.right<void>(undefined), state]
      })
  })
