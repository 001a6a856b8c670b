/**
 * Webhooks: REST-hook subscriptions per API key, and the dispatcher that delivers the outbox the
 * event log fills. Delivery is at least once: receivers de-duplicate by the event id.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import type { KeyId } from "./Access/KeyIds.js"
import { HookDisabled, InvalidTargetUrl, NotFound, type StorageError, TooManyHooks, UnknownEvent } from "./Errors.js"
import { type EventName, isEventName } from "./Events/EventCatalogue.js"
import { RETENTION_DAYS } from "./Events.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { nowIso, orNotFound } from "./internal/records.js"
import type { Actor } from "./People/Actor.js"
import * as Auditing from "./People/Auditing.js"
import { AuditLog } from "./People/AuditLog.js"
import { Transaction } from "./Transaction.js"
import * as Circuit from "./Webhooks/Circuit.js"
import { Resolver } from "./Webhooks/Resolver.js"
import * as RetryLadder from "./Webhooks/RetryLadder.js"
import * as Signature from "./Webhooks/Signature.js"
import * as TargetRules from "./Webhooks/TargetRules.js"
import { type DeliveryId, HookId } from "./Webhooks/WebhookIds.js"
import {
  type Claim,
  type DueDelivery,
  type HookOwner,
  type HookRecord,
  WebhookRepository
} from "./Webhooks/WebhookRepository.js"
import type { Delivery, Hook, HookCreate, HookListQuery, HookPatch, HookWithSecret } from "./Webhooks/WebhookSchemas.js"
import { WebhookSender } from "./Webhooks/WebhookSender.js"
import { type PageResult, toPage } from "./Wire.js"

export * as Circuit from "./Webhooks/Circuit.js"
export * from "./Webhooks/Resolver.js"
export * as RetryLadder from "./Webhooks/RetryLadder.js"
export * as Signature from "./Webhooks/Signature.js"
export { verifySignature } from "./Webhooks/Signature.js"
export * from "./Webhooks/Subscription.js"
export * as TargetRules from "./Webhooks/TargetRules.js"
export * from "./Webhooks/WebhookRepository.js"
export * from "./Webhooks/WebhookSchemas.js"
export * from "./Webhooks/WebhookSender.js"

/** The most subscriptions one key may hold (`too_many_hooks` beyond). */
export const MAX_HOOKS_PER_KEY = 20
/** How long the secret a rotation replaced keeps signing. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000
export const DEFAULT_TIMEOUT_MS = 10_000

export interface WebhookOptions {
  /** The CRM is served over https, so targets must be too. */
  readonly httpsRequired: boolean
  /** Lifts the public-address rule: local development and tests that deliver to 127.0.0.1 only. */
  readonly allowPrivateTargets: boolean
  /** Per attempt, connection to last byte. */
  readonly timeoutMs: number
  /** Hooks worked per dispatch round, and deliveries per hook. */
  readonly batch?: { readonly hooks: number; readonly perHook: number }
}

export const DEFAULT_OPTIONS: WebhookOptions = {
  httpsRequired: false,
  allowPrivateTargets: false,
  timeoutMs: DEFAULT_TIMEOUT_MS
}

type Creating = UnknownEvent | InvalidTargetUrl | TooManyHooks | StorageError

export class Webhooks extends Context.Tag("@crm/core/Webhooks")<
  Webhooks,
  {
    /** The organisation of a live key, for the admin API that names keys by id. */
    readonly ownerOfKey: (keyId: KeyId) => Effect.Effect<HookOwner, NotFound | StorageError>
    /** The owner of a hook of a live key, for the admin API that names hooks by id. */
    readonly ownerOfHook: (hookId: HookId) => Effect.Effect<HookOwner, NotFound | StorageError>
    /**
     * The changes below are each recorded in the audit trail in their own unit of work, with `by`
     * as the actor: the key that owns the hook unless said otherwise (a person in the settings).
     */
    readonly create: (owner: HookOwner, input: HookCreate, by?: Actor) => Effect.Effect<HookWithSecret, Creating>
    readonly list: (owner: HookOwner, query: HookListQuery) => Effect.Effect<PageResult<Hook>, StorageError>
    readonly get: (owner: HookOwner, id: HookId) => Effect.Effect<Hook, NotFound | StorageError>
    /**
     * Disables a hook (what it has pending fails) or enables it again: its failure streak and its
     * circuit start afresh, and nothing is re-queued. Asking for the state it is in changes nothing.
     */
    readonly update: (
      owner: HookOwner,
      id: HookId,
      patch: HookPatch,
      by?: Actor
    ) => Effect.Effect<Hook, NotFound | StorageError>
    readonly remove: (owner: HookOwner, id: HookId, by?: Actor) => Effect.Effect<void, NotFound | StorageError>
    /** A new secret; the replaced one keeps signing (a second `v1`) for 24 hours. */
    readonly rotateSecret: (
      owner: HookOwner,
      id: HookId,
      by?: Actor
    ) => Effect.Effect<HookWithSecret, NotFound | StorageError>
    readonly deliveries: (
      owner: HookOwner,
      hookId: HookId,
      query: HookListQuery
    ) => Effect.Effect<PageResult<Delivery>, NotFound | StorageError>
    /**
     * Queues a new attempt of a delivery, due now, and ends the hook's pause if its circuit is open
     * (someone who says the target is back is believed once). A disabled hook sends nothing: 409.
     */
    readonly redeliver: (
      owner: HookOwner,
      hookId: HookId,
      deliveryId: DeliveryId,
      by?: Actor
    ) => Effect.Effect<Delivery, NotFound | HookDisabled | StorageError>
    /** The retention job: deliveries go with the events they carry, after thirty days. */
    readonly purge: Effect.Effect<number, StorageError>
    /**
     * Leases up to `hooks` hooks with due deliveries and returns the work of each, to be run at
     * once (the lease starts now): it sends the hook's claimed deliveries one at a time, oldest event
     * first, records every attempt, stops early when the hook's circuit opens, and ends the lease.
     * Each returns the attempts it made. The hooks' work is independent: a dispatcher runs each as
     * soon as it has room, never waiting for one hook before starting another.
     */
    readonly claimWork: (
      hooks: number
    ) => Effect.Effect<ReadonlyArray<Effect.Effect<number, StorageError>>, StorageError>
    /** One round: claims a batch of hooks and works them all, to the end. Returns the attempts made. */
    readonly dispatch: Effect.Effect<number, StorageError>
  }
>() {}

export const toHook = (record: HookRecord): Hook => ({
  id: record.id,
  target_url: record.target_url,
  events: [...record.events],
  active: record.active,
  disabled_reason: record.disabled_reason,
  paused_until: record.paused_until,
  created_at: record.created_at,
  updated_at: record.updated_at
})

const withSecret = (record: HookRecord): HookWithSecret => ({
  ...toHook(record),
  secret: record.secret,
  previous_secret_expires_at: record.previous_secret_expires_at
})

/** The secrets that sign at `now`: the current one, and the replaced one during the overlap. */
export const signingSecrets = (hook: HookRecord, now: number): ReadonlyArray<string> =>
  hook.previous_secret !== null &&
  hook.previous_secret_expires_at !== null &&
  Date.parse(hook.previous_secret_expires_at) > now
    ? [hook.secret, hook.previous_secret]
    : [hook.secret]

const EXCERPT_LIMIT = 1024
const DAY_MS = 86_400_000
const LEASE_MARGIN_MS = 30_000
const DEFAULT_BATCH = { hooks: 20, perHook: 10 }
const DISABLED_BY_OWNER = "disabled by its owner"

const refusedTarget = (refusal: TargetRules.Refusal) =>
  new InvalidTargetUrl({ detail: { rule: refusal.rule, message: refusal.message } })

const iso = (ms: number) => new Date(ms).toISOString()

/** Who changes a hook when no one else is named: the key it belongs to. */
const owningKey = (owner: HookOwner): Actor => ({ kind: "key", id: owner.keyId, label: null, address: null })

/** What the audit trail says of a hook: never its secret. */
const described = (hook: HookRecord) => ({ hook_id: hook.id, url: hook.target_url, events: [...hook.events] })

// A receiver's answer is any bytes (a gzip or other binary body holds NULs), but PostgreSQL text
// cannot store U+0000: an unrecordable attempt would be sent again after every lease, forever.
const storable = (text: string) => text.replaceAll("\u0000", "\uFFFD")

export const makeWith = (options: WebhookOptions) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const repo = yield* WebhookRepository
    const tx = yield* Transaction
    const resolver = yield* Resolver
    const sender = yield* WebhookSender
    const record = Auditing.recorder(yield* AuditLog, ids)
    const recordHook = (owner: HookOwner, by: Actor | undefined, action: string, hook: HookRecord, more = {}) =>
      record({
        organisationId: owner.organisationId,
        actor: by ?? owningKey(owner),
        action,
        target: { kind: "hook", id: hook.id },
        summary: { ...described(hook), ...more }
      })
    const batch = options.batch ?? DEFAULT_BATCH
    // A claimant must finish a hook's batch before its lease runs out, or another would take it over.
    const leaseMs = batch.perHook * options.timeoutMs + LEASE_MARGIN_MS
    const urlOptions = { httpsRequired: options.httpsRequired, allowPrivate: options.allowPrivateTargets }

    const find = (owner: HookOwner, id: HookId) => repo.get(owner, id).pipe(orNotFound("hook"))

    const checkTarget = operation("Webhooks.checkTarget")(function* (url: string) {
      const target = TargetRules.checkUrl(url, urlOptions)
      if (Either.isLeft(target)) return yield* refusedTarget(target.left)
      if (options.allowPrivateTargets || Option.isSome(target.right.address)) return
      const refused = TargetRules.checkResolved(yield* resolver.resolve(target.right.hostname))
      if (Option.isSome(refused)) return yield* refusedTarget(refused.value)
    })

    const eventsOf = (names: ReadonlyArray<string>) => {
      const unknown = names.find((name) => !isEventName(name))
      return unknown === undefined
        ? Effect.succeed([...new Set(names)] as Array<EventName>)
        : Effect.fail(new UnknownEvent({ detail: `'${unknown}' is not an event of the catalogue` }))
    }

    const create = operation("Webhooks.create")(function* (owner: HookOwner, input: HookCreate, by?: Actor) {
      const events = yield* eventsOf(input.events)
      yield* checkTarget(input.target_url)
      const now = yield* nowIso
      const hook: HookRecord = {
        id: brand(HookId, ids.next()),
        organisation_id: owner.organisationId,
        key_id: owner.keyId,
        target_url: input.target_url,
        events,
        active: true,
        disabled_reason: null,
        secret: yield* Signature.generateSecret,
        previous_secret: null,
        previous_secret_expires_at: null,
        failing_since: null,
        unanswered_attempts: 0,
        paused_until: null,
        created_at: now,
        updated_at: now
      }
      const inserted = yield* tx.run(
        Effect.tap(repo.insert(hook, MAX_HOOKS_PER_KEY), (done) =>
          done ? recordHook(owner, by, "hook.created", hook, { key_id: owner.keyId }) : Effect.void
        )
      )
      if (!inserted) {
        return yield* new TooManyHooks({ detail: `a key holds at most ${MAX_HOOKS_PER_KEY} hook subscriptions` })
      }
      return withSecret(hook)
    })

    // One attempt: the URL rules again (the address check happens as the sender connects), the
    // signature over the stored body, the POST, and the ladder's verdict, recorded in one unit.
    const attempt = (hook: HookRecord, delivery: DueDelivery) =>
      Effect.gen(function* () {
        const startedAt = yield* Clock.currentTimeMillis
        const target = TargetRules.checkUrl(hook.target_url, urlOptions)
        const outcome = Either.isLeft(target)
          ? ({ _tag: "Failure", error: `target refused: ${target.left.message}`, durationMs: 0 } as const)
          : yield* sender.send({
              url: hook.target_url,
              body: delivery.body,
              timeoutMs: options.timeoutMs,
              headers: {
                "content-type": "application/json",
                "x-service-event-id": delivery.event_id,
                [Signature.HEADER.toLowerCase()]: yield* Signature.sign(
                  signingSecrets(hook, startedAt),
                  Math.floor(startedAt / 1000),
                  delivery.body
                )
              },
              refuseAddress: (address) =>
                options.allowPrivateTargets
                  ? undefined
                  : Option.getOrUndefined(Option.map(TargetRules.checkAddress(address), (refusal) => refusal.message))
            })
        const attempts = delivery.attempt_count + 1
        const jitter = yield* Random.next
        const decision = RetryLadder.decide({
          outcome:
            outcome._tag === "Response"
              ? { _tag: "Response", status: outcome.status, retryAfter: outcome.retryAfter }
              : outcome,
          attempts,
          now: startedAt,
          jitter,
          failingSince: hook.failing_since === null ? null : Date.parse(hook.failing_since)
        })
        const circuit = Circuit.afterAttempt({
          answered: outcome._tag === "Response",
          unanswered: hook.unanswered_attempts,
          now: startedAt,
          jitter
        })
        const failingSince = decision.failingSince === null ? null : iso(decision.failingSince)
        const pausedUntil = circuit.pausedUntil === null ? null : iso(circuit.pausedUntil)
        const recorded = yield* repo.recordAttempt({
          deliveryId: delivery.id,
          attempt: {
            attempted_at: iso(startedAt),
            status_code: outcome._tag === "Response" ? outcome.status : null,
            duration_ms: Math.round(outcome.durationMs),
            response_excerpt: outcome._tag === "Response" ? storable(outcome.excerpt.slice(0, EXCERPT_LIMIT)) : null,
            error: outcome._tag === "Failure" ? storable(outcome.error) : null
          },
          status: decision.status,
          attemptCount: attempts,
          nextAttemptAt: decision.nextAttemptAt === null ? null : iso(decision.nextAttemptAt),
          hookId: hook.id,
          organisationId: hook.organisation_id,
          failingSince,
          unansweredAttempts: circuit.unanswered,
          pausedUntil,
          disable: decision.disable,
          at: iso(startedAt)
        })
        // The operator's line for each attempt: what came of it, never the body or the answer's.
        const line = {
          organisation_id: hook.organisation_id,
          hook_id: hook.id,
          delivery_id: delivery.id,
          event_id: delivery.event_id,
          attempt: attempts,
          status: decision.status,
          status_code: outcome._tag === "Response" ? outcome.status : null,
          duration_ms: Math.round(outcome.durationMs),
          ...(outcome._tag === "Failure" ? { error: outcome.error } : {}),
          ...(decision.nextAttemptAt === null ? {} : { next_attempt_at: iso(decision.nextAttemptAt) })
        }
        yield* decision.status === "succeeded"
          ? Effect.logInfo("webhook delivered", line)
          : Effect.logWarning("webhook delivery failed", line)
        return recorded
      })

    // A hook's deliveries go one after another, oldest event first; a failure is rescheduled and
    // the next one still goes, until the circuit opens: the rest wait for the pause to end rather
    // than each holding the worker for a timeout. The lease is left to expire if this fiber dies half-way.
    const work = (claim: Claim, token: string) =>
      Effect.gen(function* () {
        let hook = claim.hook
        let made = 0
        for (const delivery of claim.deliveries) {
          if (!hook.active) break
          // Each attempt hands back the hook as it is now, not as claimed: a secret rotated since
          // signs with both secrets from that moment, and a hook deleted or disabled since gets
          // nothing more.
          const current = yield* attempt(hook, delivery)
          made++
          if (Option.isNone(current)) break
          hook = current.value
          if (hook.paused_until !== null) break
        }
        yield* repo.release(claim.hook.id, token)
        return made
      })

    const claimWork = (hooks: number) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const token = ids.next()
        const claims = yield* repo.claim({
          now: iso(now),
          leaseUntil: iso(now + leaseMs),
          token,
          hooks,
          perHook: batch.perHook
        })
        return claims.map((claim) => work(claim, token))
      })

    const dispatch = Effect.gen(function* () {
      const works = yield* claimWork(batch.hooks)
      // A storage failure on one hook must not cut the others' attempts short: all finish first.
      // Every claimed hook is worked at once: its lease (taken now) covers one hook's batch, so a
      // hook left waiting for others would lose its lease mid-batch and be sent twice.
      const outcomes = yield* Effect.forEach(works, Effect.either, { concurrency: "unbounded" })
      let made = 0
      for (const outcome of outcomes) {
        if (Either.isLeft(outcome)) return yield* outcome.left
        made += outcome.right
      }
      return made
    }).pipe(Effect.withSpan("Webhooks.dispatch"))

    const update = operation("Webhooks.update")(function* (owner: HookOwner, id: HookId, patch: HookPatch, by?: Actor) {
      const active = patch.active ?? patch.enabled
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* repo.getForUpdate(owner, id).pipe(orNotFound("hook"))
          if (active === undefined || active === current.active) return toHook(current)
          const changed: HookRecord = {
            ...current,
            active,
            disabled_reason: active ? null : DISABLED_BY_OWNER,
            // A hook enabled again starts with a clean record: the failures that disabled it
            // would otherwise disable it again at its first failed attempt.
            failing_since: null,
            unanswered_attempts: 0,
            paused_until: null,
            updated_at: yield* nowIso
          }
          yield* repo.update(changed)
          if (!active) yield* repo.failPending(current.organisation_id, id)
          yield* recordHook(owner, by, "hook.updated", changed, { active })
          return toHook(changed)
        })
      )
    })

    const deliveryOf = (owner: HookOwner, hookId: HookId, id: DeliveryId) =>
      repo.delivery(owner, hookId, id).pipe(orNotFound("delivery"))

    return Webhooks.of({
      ownerOfKey: (keyId) =>
        repo.keyOrganisation(keyId).pipe(
          orNotFound("key"),
          Effect.map((organisationId) => ({ organisationId, keyId }))
        ),
      ownerOfHook: (hookId) => repo.hookOwner(hookId).pipe(orNotFound("hook")),
      create,
      list: (owner, query) => repo.list(owner, query).pipe(Effect.map((rows) => toPage(rows.map(toHook), query))),
      get: (owner, id) => Effect.map(find(owner, id), toHook),
      remove: operation("Webhooks.remove")(function* (owner, id, by) {
        yield* tx.run(
          Effect.gen(function* () {
            const hook = yield* repo.getForUpdate(owner, id).pipe(orNotFound("hook"))
            if (!(yield* repo.remove(owner, id))) return yield* new NotFound({ detail: "no such hook" })
            yield* recordHook(owner, by, "hook.deleted", hook)
          })
        )
      }),
      rotateSecret: operation("Webhooks.rotateSecret")(function* (owner, id, by) {
        return yield* tx.run(
          Effect.gen(function* () {
            const current = yield* repo.getForUpdate(owner, id).pipe(orNotFound("hook"))
            const now = yield* Clock.currentTimeMillis
            const rotated: HookRecord = {
              ...current,
              secret: yield* Signature.generateSecret,
              previous_secret: current.secret,
              previous_secret_expires_at: iso(now + ROTATION_OVERLAP_MS),
              updated_at: iso(now)
            }
            yield* repo.update(rotated)
            yield* recordHook(owner, by, "hook.secret_rotated", rotated, {
              previous_secret_expires_at: rotated.previous_secret_expires_at
            })
            return withSecret(rotated)
          })
        )
      }),
      deliveries: operation("Webhooks.deliveries")(function* (owner, hookId, query) {
        yield* find(owner, hookId)
        return toPage(yield* repo.deliveries(owner, hookId, query), query)
      }),
      update,
      redeliver: operation("Webhooks.redeliver")(function* (owner, hookId, deliveryId, by) {
        return yield* tx.run(
          Effect.gen(function* () {
            const hook = yield* repo.getForUpdate(owner, hookId).pipe(orNotFound("hook"))
            yield* deliveryOf(owner, hookId, deliveryId)
            if (!hook.active) {
              return yield* new HookDisabled({
                detail: {
                  message:
                    "the hook is disabled and sends nothing; enable it first (PATCH /hooks/{id} with active: true)",
                  disabled_reason: hook.disabled_reason
                }
              })
            }
            yield* repo.requeue(hook.organisation_id, deliveryId, yield* nowIso)
            if (hook.paused_until !== null) yield* repo.update({ ...hook, paused_until: null })
            yield* recordHook(owner, by, "hook.redelivered", hook, { delivery_id: deliveryId })
            return yield* deliveryOf(owner, hookId, deliveryId)
          })
        )
      }),
      purge: Effect.flatMap(Clock.currentTimeMillis, (now) =>
        repo.purgeBefore(iso(now - RETENTION_DAYS * DAY_MS))
      ).pipe(Effect.withSpan("Webhooks.purge")),
      claimWork,
      dispatch
    })
  })

export const make = makeWith(DEFAULT_OPTIONS)
export const layerWith = (options: WebhookOptions) => Layer.effect(Webhooks, makeWith(options))
export const layer = layerWith(DEFAULT_OPTIONS)
