/**
 * Webhook subscriptions and their outbox. The outbox rows are written by `EventLog.append` (in the
 * event's transaction); here they are claimed, attempted and listed. A claim leases hooks with
 * `FOR UPDATE SKIP LOCKED` plus `lease_until`, so concurrent processes never work the same hook and
 * a process that dies mid-delivery only delays the work until its lease runs out.
 */
import { type Access, type Organisation, Webhooks } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { atomically } from "./internal/atomically.js"
import { qualified } from "./internal/columns.js"
import { orStorageError } from "./internal/errors.js"
import { purgeBefore } from "./internal/purge.js"
import { count, decimal } from "./internal/storedValues.js"
import { textArray } from "./internal/values.js"
import {
  type DeliveryRow,
  deliveryTable,
  HOOK_KEPT,
  type HookRow,
  hookTable,
  toDelivery,
  toHook
} from "./internal/webhookRows.js"

interface DueRow {
  readonly hook_id: Webhooks.HookId
  readonly id: Webhooks.DeliveryId
  readonly event_id: string | number | bigint
  readonly body: string
  readonly attempt_count: number | string
}

const DELIVERY_COLUMNS = qualified("d", deliveryTable.list)

export const make: Effect.Effect<
  Context.Tag.Service<typeof Webhooks.WebhookRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(hookTable.selected)
  const owned = (owner: Webhooks.HookOwner, id: string) =>
    sql`organisation_id = ${owner.organisationId}::uuid AND key_id = ${owner.keyId}::uuid AND id = ${id}::uuid`

  const selectHook = (operation: string, lock: "" | " FOR UPDATE") => (owner: Webhooks.HookOwner, id: string) =>
    sql<HookRow>`SELECT ${columns} FROM webhook_hooks WHERE ${owned(owner, id)}${sql.literal(lock)}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toHook)),
      orStorageError(`WebhookRepository.${operation}`)
    )

  // Attempts folded into each delivery row, oldest first, so a page costs one statement.
  const deliveryRows = (where: Statement.Statement<unknown>, tail: Statement.Statement<unknown>) =>
    sql<DeliveryRow>`SELECT ${sql.literal(DELIVERY_COLUMNS)},
        COALESCE((SELECT json_agg(json_build_object('attempted_at', a.attempted_at, 'status_code', a.status_code,
            'duration_ms', a.duration_ms, 'response_excerpt', a.response_excerpt, 'error', a.error) ORDER BY a.id)
          FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::json) AS attempts
      FROM webhook_deliveries d JOIN webhook_hooks h ON h.id = d.hook_id
      WHERE ${where} ${tail}`

  const ownedDeliveries = (owner: Webhooks.HookOwner, hookId: string) =>
    sql`h.organisation_id = ${owner.organisationId}::uuid AND h.key_id = ${owner.keyId}::uuid
      AND d.hook_id = ${hookId}::uuid`

  return Webhooks.WebhookRepository.of({
    keyOrganisation: (keyId) =>
      sql<{ organisation_id: Organisation.OrganisationId }>`SELECT organisation_id FROM api_keys
        WHERE id = ${keyId}::uuid AND revoked_at IS NULL`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.organisation_id)),
        orStorageError("WebhookRepository.keyOrganisation")
      ),

    hookOwner: (hookId) =>
      sql<{
        organisation_id: Organisation.OrganisationId
        key_id: Access.KeyId
      }>`SELECT h.organisation_id, h.key_id FROM webhook_hooks h
        JOIN api_keys k ON k.id = h.key_id WHERE h.id = ${hookId}::uuid AND k.revoked_at IS NULL`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({
            organisationId: row.organisation_id,
            keyId: row.key_id
          }))
        ),
        orStorageError("WebhookRepository.hookOwner")
      ),

    // The key's row lock serialises its concurrent inserts, so the count cannot be raced past.
    insert: (hook, limit) =>
      atomically(sql)(
        Effect.gen(function* () {
          yield* sql`SELECT id FROM api_keys WHERE id = ${hook.key_id}::uuid FOR UPDATE`
          const [held] = yield* sql<{ n: string }>`SELECT count(*) AS n FROM webhook_hooks
              WHERE organisation_id = ${hook.organisation_id}::uuid AND key_id = ${hook.key_id}::uuid`
          if (count(held!.n) >= limit) return false
          yield* sql`INSERT INTO webhook_hooks ${hookTable.insert(sql, hook)}`
          return true
        })
      ).pipe(orStorageError("WebhookRepository.insert")),

    get: selectHook("get", ""),
    getForUpdate: selectHook("getForUpdate", " FOR UPDATE"),

    update: (hook) =>
      sql`UPDATE webhook_hooks SET ${hookTable.assignments(sql, hook, HOOK_KEPT)}
        WHERE organisation_id = ${hook.organisation_id}::uuid AND id = ${hook.id}::uuid`.pipe(
        Effect.asVoid,
        orStorageError("WebhookRepository.update")
      ),

    remove: (owner, id) =>
      sql`DELETE FROM webhook_hooks WHERE ${owned(owner, id)} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStorageError("WebhookRepository.remove")
      ),

    list: (owner, page) =>
      sql<HookRow>`SELECT ${columns} FROM webhook_hooks
        WHERE organisation_id = ${owner.organisationId}::uuid AND key_id = ${owner.keyId}::uuid
        ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
        Effect.map((rows) => rows.map(toHook)),
        orStorageError("WebhookRepository.list")
      ),

    deliveries: (owner, hookId, page) =>
      deliveryRows(
        ownedDeliveries(owner, hookId),
        sql`ORDER BY d.event_id DESC, d.id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`
      ).pipe(
        Effect.map((rows) => rows.map(toDelivery)),
        orStorageError("WebhookRepository.deliveries")
      ),

    delivery: (owner, hookId, id) =>
      deliveryRows(sql`${ownedDeliveries(owner, hookId)} AND d.id = ${id}::uuid`, sql``).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDelivery)),
        orStorageError("WebhookRepository.delivery")
      ),

    requeue: (organisationId, deliveryId, at) =>
      sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${at}::timestamptz
        WHERE organisation_id = ${organisationId}::uuid AND id = ${deliveryId}::uuid`.pipe(
        Effect.asVoid,
        orStorageError("WebhookRepository.requeue")
      ),

    failPending: (organisationId, hookId) =>
      sql`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL
        WHERE organisation_id = ${organisationId}::uuid AND hook_id = ${hookId}::uuid AND status = 'pending'`.pipe(
        Effect.asVoid,
        orStorageError("WebhookRepository.failPending")
      ),

    // Updating the hook row (not only locking it) matters: a concurrent claimant blocked on the
    // same row re-checks `lease_until` against the committed lease and skips the hook. Each
    // candidate costs one probe of `webhook_deliveries_pending` for its oldest due delivery, which
    // both qualifies the hook and orders the claim; the claimed hooks' batches come in one more
    // statement, outside any transaction: the committed lease already keeps every other claimant off.
    claim: (input) =>
      Effect.gen(function* () {
        const hooks = yield* sql<HookRow>`UPDATE webhook_hooks SET lease_until = ${input.leaseUntil}::timestamptz,
                lease_token = ${input.token}::uuid
              WHERE (organisation_id, id) IN (
                SELECT h.organisation_id, h.id FROM webhook_hooks h
                CROSS JOIN LATERAL (SELECT d.event_id FROM webhook_deliveries d
                  WHERE d.hook_id = h.id AND d.status = 'pending'
                    AND (d.attempt_count = 0 OR d.next_attempt_at <= ${input.now}::timestamptz)
                  ORDER BY d.event_id LIMIT 1) oldest
                WHERE h.active AND (h.lease_until IS NULL OR h.lease_until <= ${input.now}::timestamptz)
                  AND (h.paused_until IS NULL OR h.paused_until <= ${input.now}::timestamptz)
                  AND EXISTS (SELECT 1 FROM api_keys k WHERE k.id = h.key_id AND k.revoked_at IS NULL)
                ORDER BY oldest.event_id, h.id
                LIMIT ${input.hooks}
                FOR UPDATE OF h SKIP LOCKED)
              RETURNING ${columns}`
        if (hooks.length === 0) return []
        const due = yield* sql<DueRow>`SELECT d.hook_id, d.id, d.event_id, d.body, d.attempt_count
              FROM unnest(${textArray(hooks.map((row) => row.organisation_id))}::uuid[],
                ${textArray(hooks.map((row) => row.id))}::uuid[]) AS h (organisation_id, id)
              CROSS JOIN LATERAL (SELECT hook_id, id, event_id, body, attempt_count FROM webhook_deliveries
                WHERE organisation_id = h.organisation_id AND hook_id = h.id AND status = 'pending'
                  AND (attempt_count = 0 OR next_attempt_at <= ${input.now}::timestamptz)
                ORDER BY event_id LIMIT ${input.perHook}) d
              ORDER BY d.event_id`
        return hooks.map(
          (row): Webhooks.Claim => ({
            hook: toHook(row),
            deliveries: due
              .filter((delivery) => delivery.hook_id === row.id)
              .map((delivery) => ({
                id: delivery.id,
                event_id: decimal(delivery.event_id),
                body: delivery.body,
                attempt_count: count(delivery.attempt_count)
              }))
          })
        )
      }).pipe(orStorageError("WebhookRepository.claim")),

    // One statement (one round trip, atomic by itself): it runs once per delivery attempt. Its two
    // updates of webhook_deliveries touch different rows, as one statement's parts must.
    recordAttempt: (record) => {
      const { attempt } = record
      return sql<HookRow>`WITH attempt AS (
            INSERT INTO webhook_attempts (organisation_id, delivery_id, attempted_at, status_code, duration_ms,
              response_excerpt, error)
            SELECT organisation_id, id, ${attempt.attempted_at}::timestamptz, ${attempt.status_code}::integer,
              ${attempt.duration_ms}::integer, ${attempt.response_excerpt}, ${attempt.error}
            FROM webhook_deliveries
            WHERE organisation_id = ${record.organisationId}::uuid AND id = ${record.deliveryId}::uuid),
          delivery AS (
            UPDATE webhook_deliveries SET status = ${record.status}, attempt_count = ${record.attemptCount},
              next_attempt_at = ${record.nextAttemptAt}::timestamptz
            WHERE organisation_id = ${record.organisationId}::uuid AND id = ${record.deliveryId}::uuid),
          -- A disabled hook sends nothing more: what it still has pending fails with it.
          disabled AS (
            UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL
            WHERE ${record.disable}::text IS NOT NULL AND organisation_id = ${record.organisationId}::uuid
              AND hook_id = ${record.hookId}::uuid AND status = 'pending'
              AND id <> ${record.deliveryId}::uuid)
        UPDATE webhook_hooks SET failing_since = ${record.failingSince}::timestamptz,
          unanswered_attempts = ${record.unansweredAttempts}::integer, paused_until = ${record.pausedUntil}::timestamptz,
          active = active AND ${record.disable}::text IS NULL,
          disabled_reason = coalesce(${record.disable}::text, disabled_reason),
          updated_at = CASE WHEN ${record.disable}::text IS NULL THEN updated_at ELSE ${record.at}::timestamptz END
        WHERE organisation_id = ${record.organisationId}::uuid AND id = ${record.hookId}::uuid
        RETURNING ${columns}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toHook)),
        orStorageError("WebhookRepository.recordAttempt")
      )
    },

    purgeBefore: (at) => purgeBefore(sql, "webhook_deliveries", "created_at", at, "WebhookRepository.purgeBefore"),

    release: (hookId, token) =>
      sql`UPDATE webhook_hooks SET lease_until = NULL, lease_token = NULL
        WHERE id = ${hookId}::uuid AND lease_token = ${token}::uuid`.pipe(
        Effect.asVoid,
        orStorageError("WebhookRepository.release")
      )
  })
})

export const layer = Layer.effect(Webhooks.WebhookRepository, make)
