/**
 * Organisations and API keys. `findKeyByHash` runs on every request, so its answers are cached in
 * process (`internal/KeyCache.ts`): on a PostgreSQL server only while this process LISTENs on
 * `crm_access`, where every write below announces itself with `pg_notify` in the writing statement
 * (delivered on COMMIT, to every process); on PGlite (one process) the repository's own writes
 * invalidate it directly; on any other `SqlClient` nothing is cached.
 */
import { Access, type Organisation } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { orStorageError } from "./internal/errors.js"
import {
  CHANNEL,
  defaultCacheOptions,
  defaultListenerOptions,
  KeyCache,
  type KeyCacheOptions,
  type ListenerOptions,
  makeListener
} from "./internal/KeyCache.js"
import {
  type ApiKeyRow,
  apiKeyTable,
  type OrganisationRow,
  organisationTable,
  toApiKey,
  toOrganisation
} from "./internal/rows.js"
import { count, iso } from "./internal/storedValues.js"
import { PgliteClient } from "./PgliteClient.js"

interface KeyWithOrganisationRow extends ApiKeyRow {
  readonly organisation_name: string
  readonly organisation_settings: unknown
  readonly organisation_test_mode: boolean
  readonly organisation_clock_frozen_at: Date | string | null
}

interface OrganisationSummaryRow {
  readonly id: Organisation.OrganisationId
  readonly name: string
  readonly timezone: string
  readonly default_currency: string
  readonly created_at: Date | string
}

export interface AccessRepositoryOptions {
  readonly cache?: KeyCacheOptions
  readonly listener?: ListenerOptions
}

export const makeWith = (
  options: AccessRepositoryOptions = {}
): Effect.Effect<Context.Tag.Service<typeof Access.AccessRepository>, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    // PGlite: one process, no LISTEN, the repository's own writes are all there is to hear of.
    // A client that is neither PgClient nor PGlite gets a cache that never answers.
    const embedded = Option.isNone(pg) && Option.isSome(yield* Effect.serviceOption(PgliteClient))
    const cache = new KeyCache(options.cache ?? defaultCacheOptions, embedded)
    const organisationColumns = sql.literal(organisationTable.selected)
    const keyColumns = sql.literal(apiKeyTable.selected)
    const listener = Option.map(pg, (client) =>
      makeListener(
        cache,
        client.listen(CHANNEL),
        (payload) => sql`SELECT pg_notify(${CHANNEL}, ${payload})`,
        options.listener ?? defaultListenerOptions
      )
    )
    if (Option.isSome(listener)) {
      yield* Effect.forkScoped(listener.value.run)
      // Finalizers run last first: this one, before the fiber above is interrupted.
      yield* Effect.addFinalizer(() => listener.value.stop)
    }
    // A revocation or a settings change returns once every process caching keys has applied it.
    const announced = <A, E, R>(
      write: (suffix: string) => Effect.Effect<ReadonlyArray<A>, E, R>
    ): Effect.Effect<ReadonlyArray<A>, E, R> =>
      Option.isSome(listener) ? listener.value.announced(write, (rows) => rows.length > 0) : write("")

    const lookup = (hash: string) =>
      sql<KeyWithOrganisationRow>`SELECT k.id, k.organisation_id, k.name, k.hash, k.scopes, k.allowed_ips, k.expires_at,
          k.revoked_at, k.created_at, k.owner_id, k.created_by, k.last_used_at, k.grant_id, k.client_id,
          o.name AS organisation_name, o.settings AS organisation_settings,
          o.test_mode AS organisation_test_mode, o.clock_frozen_at AS organisation_clock_frozen_at
        FROM api_keys k JOIN organisations o ON o.id = k.organisation_id
        WHERE k.hash = ${hash}`.pipe(
        Effect.flatMap((rows) => {
          if (rows.length === 0) return Effect.succeedNone
          const row = rows[0]
          return toOrganisation({
            id: row.organisation_id,
            name: row.organisation_name,
            settings: row.organisation_settings,
            test_mode: row.organisation_test_mode,
            clock_frozen_at: row.organisation_clock_frozen_at
          }).pipe(Effect.map((organisation) => Option.some({ key: toApiKey(row), organisation })))
        }),
        // Last, so that a key whose stored scopes `toApiKey` refuses fails the lookup too.
        orStorageError("AccessRepository.findKeyByHash")
      )

    // In process too, at once: this process's next request may come before its own NOTIFY does.
    // (Inside a transaction that later rolls back, this only costs a cache miss.)
    const forget = (what: "key" | "org", id: string) =>
      Effect.sync(() => (what === "key" ? cache.forgetKey(id) : cache.forgetOrganisation(id)))

    return Access.AccessRepository.of({
      // A new organisation has no keys, so nothing cached can be about it: no NOTIFY.
      insertOrganisation: (organisation, at) =>
        sql`INSERT INTO organisations ${organisationTable.insert(
          sql,
          {
            id: organisation.id,
            name: organisation.name,
            settings: organisation.settings,
            test_mode: organisation.test_clock !== undefined,
            clock_frozen_at: organisation.test_clock?.frozen_at ?? null
          },
          { created_at: sql`${at}::timestamptz` }
        )}`.pipe(Effect.asVoid, orStorageError("AccessRepository.insertOrganisation")),

      getOrganisation: (id) =>
        sql<OrganisationRow>`SELECT ${organisationColumns} FROM organisations WHERE id = ${id}::uuid`.pipe(
          orStorageError("AccessRepository.getOrganisation"),
          Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeedNone : Effect.asSome(toOrganisation(rows[0]))))
        ),

      // FOR NO KEY UPDATE, what the settings UPDATE takes anyway: it waits for the FOR SHARE of
      // writes in flight, yet not for the key-share locks that inserts referencing the row take.
      // A holder that had to wait reads the row as the other committed it.
      holdOrganisation: (id, mode) =>
        (mode === "share"
          ? sql<OrganisationRow>`SELECT ${organisationColumns} FROM organisations
              WHERE id = ${id}::uuid FOR SHARE`
          : sql<OrganisationRow>`SELECT ${organisationColumns} FROM organisations
              WHERE id = ${id}::uuid FOR NO KEY UPDATE`
        ).pipe(
          orStorageError("AccessRepository.holdOrganisation"),
          Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeedNone : Effect.asSome(toOrganisation(rows[0]))))
        ),

      // The organisation's name lives in its settings document; the column mirrors it.
      updateSettings: (id, settings) =>
        announced((suffix) =>
          sql<OrganisationRow>`WITH updated AS (
              UPDATE organisations SET ${organisationTable.assignments(sql, { name: settings.name, settings })}
              WHERE id = ${id}::uuid RETURNING ${organisationColumns}
            )
            SELECT ${organisationColumns}, pg_notify('crm_access', 'org:' || id || ${suffix}) AS notified FROM updated`.pipe(
            Effect.tap(forget("org", id))
          )
        ).pipe(
          orStorageError("AccessRepository.updateSettings"),
          Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeedNone : Effect.asSome(toOrganisation(rows[0]))))
        ),

      // NOTIFYs arrive in commit order: once every process has applied this one, it has applied
      // the change the unit committed before it too.
      announceOrganisation: (id) =>
        announced((suffix) =>
          sql`SELECT pg_notify('crm_access', 'org:' || ${id} || ${suffix}) AS notified`.pipe(
            Effect.tap(forget("org", id))
          )
        ).pipe(Effect.asVoid, orStorageError("AccessRepository.announceOrganisation")),

      // Compare and set: `IS NOT DISTINCT FROM` so that null (real time) compares equal to null.
      setTestClock: (id, expected, frozenAt) =>
        announced((suffix) =>
          sql`WITH moved AS (
              UPDATE organisations SET clock_frozen_at = ${frozenAt}::timestamptz
              WHERE id = ${id}::uuid AND test_mode AND clock_frozen_at IS NOT DISTINCT FROM ${expected}::timestamptz
              RETURNING id
            )
            SELECT id, pg_notify('crm_access', 'org:' || id || ${suffix}) AS notified FROM moved`.pipe(
            Effect.tap(forget("org", id))
          )
        ).pipe(
          Effect.map((rows) => rows.length > 0),
          orStorageError("AccessRepository.setTestClock")
        ),

      countOrganisations: sql<{ n: string }>`SELECT count(*) AS n FROM organisations`.pipe(
        Effect.map((rows) => count(rows[0].n)),
        orStorageError("AccessRepository.countOrganisations")
      ),

      listOrganisations: sql<OrganisationRow>`SELECT ${organisationColumns} FROM organisations
          ORDER BY created_at, id`.pipe(
        orStorageError("AccessRepository.listOrganisations"),
        Effect.flatMap(Effect.forEach(toOrganisation))
      ),

      // Two fields of the document, not the document: a page of organisations carries no settings.
      organisationPage: (page) =>
        sql<OrganisationSummaryRow>`SELECT id, name, settings->>'timezone' AS timezone,
            settings->>'default_currency' AS default_currency, created_at
          FROM organisations ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
          Effect.map((rows) => rows.map((row) => ({ ...row, created_at: iso(row.created_at) }))),
          orStorageError("AccessRepository.organisationPage")
        ),

      // Unknown keys are not cached, so a new key works at once anyway; the NOTIFY keeps that
      // true should negative answers ever be cached.
      insertKey: (key) =>
        sql`WITH inserted AS (
            INSERT INTO api_keys ${apiKeyTable.insert(sql, key)}
            RETURNING id
          )
          SELECT pg_notify('crm_access', 'key:' || id) AS notified FROM inserted`.pipe(
          Effect.tap(forget("key", key.id)),
          Effect.asVoid,
          orStorageError("AccessRepository.insertKey")
        ),

      // A connected app's key is the one with a grant.
      keyPage: (organisationId, page, kind) =>
        sql<ApiKeyRow>`SELECT ${keyColumns}
          FROM api_keys WHERE organisation_id = ${organisationId}::uuid
            AND ${kind === "apps" ? sql`grant_id IS NOT NULL` : sql`grant_id IS NULL`}
          ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
          Effect.map((rows) => rows.map(toApiKey)),
          orStorageError("AccessRepository.keyPage")
        ),

      findKeyByHash: (hash) =>
        Effect.suspend(() => {
          if (Option.isSome(listener)) listener.value.want()
          const now = Date.now()
          const cached = cache.get(hash, now)
          if (cached !== undefined) return Effect.succeed(Option.some(cached))
          const ticket = cache.ticket(now)
          return lookup(hash).pipe(
            Effect.tap((found) => {
              if (Option.isSome(found)) cache.put(hash, found.value, ticket, Date.now())
            })
          )
        }),

      // No NOTIFY and no cache invalidation: it runs for requests (once a minute per key and
      // process), and nothing a cached entry decides (scopes, expiry, revocation, addresses)
      // depends on it; an entry's `last_used_at` may lag, which only what reads the key's row
      // (`keyPage`, `key`) shows. Requests finish out of order: an earlier time never replaces a later.
      touchKey: (id, at) =>
        sql`UPDATE api_keys SET last_used_at = ${at}::timestamptz
          WHERE id = ${id}::uuid AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz)`.pipe(
          Effect.asVoid,
          orStorageError("AccessRepository.touchKey")
        ),

      key: (id) =>
        sql<ApiKeyRow>`SELECT ${keyColumns} FROM api_keys WHERE id = ${id}::uuid`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey)),
          orStorageError("AccessRepository.key")
        ),

      // A second revocation keeps the first time: the key was already dead then.
      revokeKey: (id, at) =>
        announced((suffix) =>
          sql`WITH revoked AS (
              UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${at}::timestamptz) WHERE id = ${id}::uuid
              RETURNING id
            )
            SELECT id, pg_notify('crm_access', 'key:' || id || ${suffix}) AS notified FROM revoked`.pipe(
            Effect.tap(forget("key", id))
          )
        ).pipe(
          Effect.map((rows) => rows.length > 0),
          orStorageError("AccessRepository.revokeKey")
        ),

      // One notification for all the keys, the organisation's (PostgreSQL delivers a transaction's
      // identical notifications once): a process acknowledges it only once it has dropped every
      // one of them, where with one per key it might acknowledge the first before it applied the
      // last. It costs the organisation's other cached keys a read each. A key that another caller
      // revokes meanwhile is that caller's to return.
      revokeAppsOf: (organisationId, accountId, at) =>
        announced((suffix) =>
          sql<ApiKeyRow>`WITH revoked AS (
              UPDATE api_keys SET revoked_at = ${at}::timestamptz
              WHERE organisation_id = ${organisationId}::uuid AND created_by = ${accountId}::uuid
                AND grant_id IS NOT NULL AND revoked_at IS NULL
              RETURNING ${keyColumns}
            )
            SELECT *, pg_notify('crm_access', 'org:' || organisation_id || ${suffix}) AS notified FROM revoked`.pipe(
            Effect.tap(forget("org", organisationId))
          )
        ).pipe(
          // As they were: live.
          Effect.map((rows) => rows.map((row) => ({ ...toApiKey(row), revoked_at: null }))),
          orStorageError("AccessRepository.revokeAppsOf")
        )
    })
  })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Access.AccessRepository>,
  never,
  SqlClient.SqlClient | Scope.Scope
> = makeWith()

/** Scoped: on a PostgreSQL server the listener behind the key cache lives as long as the layer. */
export const layerWith = (
  options: AccessRepositoryOptions = {}
): Layer.Layer<Access.AccessRepository, never, SqlClient.SqlClient> =>
  Layer.scoped(Access.AccessRepository, makeWith(options))

export const layer: Layer.Layer<Access.AccessRepository, never, SqlClient.SqlClient> = layerWith()
