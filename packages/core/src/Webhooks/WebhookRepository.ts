import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { KeyId } from "../Access/KeyIds.js"
import type { StorageError } from "../Errors.js"
import type { EventName } from "../Events/EventCatalogue.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { DeliveryId, HookId } from "./WebhookIds.js"
import type { Delivery, DeliveryAttempt, DeliveryStatus } from "./WebhookSchemas.js"

/** A subscription as stored: the wire `Hook` plus its owner, its secrets, its failure streak and its circuit. */
export interface HookRecord {
  readonly id: HookId
  readonly organisation_id: OrganisationId
  readonly key_id: KeyId
  readonly target_url: string
  readonly events: ReadonlyArray<EventName>
  readonly active: boolean
  readonly disabled_reason: string | null
  readonly secret: string
  /** The secret a rotation replaced; it signs too until `previous_secret_expires_at`. */
  readonly previous_secret: string | null
  readonly previous_secret_expires_at: string | null
  /** When the current run of failed attempts began; null while the last attempt succeeded. */
  readonly failing_since: string | null
  /** Attempts in a row that got no answer (see `Circuit`). */
  readonly unanswered_attempts: number
  /** While its circuit is open: none of the hook's deliveries is attempted before then. */
  readonly paused_until: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface HookOwner {
  readonly organisationId: OrganisationId
  readonly keyId: KeyId
}

/** One delivery to send: the stored body is sent byte for byte. */
export interface DueDelivery {
  readonly id: DeliveryId
  readonly event_id: string
  readonly body: string
  readonly attempt_count: number
}

export interface Claim {
  readonly hook: HookRecord
  /** Oldest event first. */
  readonly deliveries: ReadonlyArray<DueDelivery>
}

export interface AttemptRecord {
  readonly deliveryId: DeliveryId
  readonly attempt: DeliveryAttempt
  readonly status: DeliveryStatus
  readonly attemptCount: number
  readonly nextAttemptAt: string | null
  readonly hookId: HookId
  readonly organisationId: OrganisationId
  /** The subscription's failure streak after the attempt. */
  readonly failingSince: string | null
  /** The subscription's circuit after the attempt. */
  readonly unansweredAttempts: number
  readonly pausedUntil: string | null
  /** Disables the subscription with this visible reason; its other pending deliveries fail with it. */
  readonly disable: string | null
  readonly at: string
}

/**
 * Subscriptions and their outbox. The deliveries themselves are written by the `EventLog`
 * adapter's `append`, in the transaction of the event they carry, one per hook `receives` selects.
 */
export class WebhookRepository extends Context.Tag("@crm/core/WebhookRepository")<
  WebhookRepository,
  {
    /** The organisation of a live (not revoked) key. */
    readonly keyOrganisation: (keyId: KeyId) => Effect.Effect<Option.Option<OrganisationId>, StorageError>
    /** Whose a hook is, when its key is live (not revoked): the admin API names hooks by id alone. */
    readonly hookOwner: (hookId: HookId) => Effect.Effect<Option.Option<HookOwner>, StorageError>
    /** Inserts unless the key already holds `limit` hooks (then false); safe under concurrent inserts. */
    readonly insert: (hook: HookRecord, limit: number) => Effect.Effect<boolean, StorageError>
    readonly get: (owner: HookOwner, id: HookId) => Effect.Effect<Option.Option<HookRecord>, StorageError>
    /** Like `get`, and no other unit of work changes the hook until the calling one ends. */
    readonly getForUpdate: (owner: HookOwner, id: HookId) => Effect.Effect<Option.Option<HookRecord>, StorageError>
    readonly update: (hook: HookRecord) => Effect.Effect<void, StorageError>
    readonly remove: (owner: HookOwner, id: HookId) => Effect.Effect<boolean, StorageError>
    /** Newest first, ties by id; at most `limit + 1`. */
    readonly list: (owner: HookOwner, page: Page) => Effect.Effect<ReadonlyArray<HookRecord>, StorageError>
    /** A hook's deliveries with their attempts, newest event first; at most `limit + 1`. */
    readonly deliveries: (
      owner: HookOwner,
      hookId: HookId,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Delivery>, StorageError>
    readonly delivery: (
      owner: HookOwner,
      hookId: HookId,
      id: string
    ) => Effect.Effect<Option.Option<Delivery>, StorageError>
    /** Makes a delivery of the organisation pending again, due at `at`. */
    readonly requeue: (
      organisationId: OrganisationId,
      deliveryId: DeliveryId,
      at: string
    ) => Effect.Effect<void, StorageError>
    /** Fails what a hook of the organisation still has pending: it was disabled, so none of it will be sent. */
    readonly failPending: (organisationId: OrganisationId, hookId: HookId) => Effect.Effect<void, StorageError>
    /**
     * Leases up to `hooks` active hooks of live keys that have due deliveries, no unexpired lease and
     * no pause running (`paused_until`), until `leaseUntil`, and returns up to `perHook` due
     * deliveries of each, oldest event first. The hooks whose oldest due delivery carries the oldest
     * event come first, so under a backlog every hook gets its turn. A hook is worked by one
     * claimant at a time (across processes), which keeps first attempts in event order; a claimant
     * that dies leaves the lease to expire, and the next claim after it takes the work over.
     */
    readonly claim: (input: {
      readonly now: string
      readonly leaseUntil: string
      readonly token: string
      readonly hooks: number
      readonly perHook: number
    }) => Effect.Effect<ReadonlyArray<Claim>, StorageError>
    /**
     * Stores one attempt with the delivery's and the hook's new state, in one transaction, and
     * returns the hook as it then is (none once deleted): the dispatcher's view of it for the next
     * attempt, with whatever its owner changed meanwhile.
     */
    readonly recordAttempt: (record: AttemptRecord) => Effect.Effect<Option.Option<HookRecord>, StorageError>
    /** Drops deliveries (with their attempts) created before `at`; returns how many. */
    readonly purgeBefore: (at: string) => Effect.Effect<number, StorageError>
    /** Ends a lease taken with `token` (a lease taken over by someone else is left alone). */
    readonly release: (hookId: HookId, token: string) => Effect.Effect<void, StorageError>
  }
>() {}
