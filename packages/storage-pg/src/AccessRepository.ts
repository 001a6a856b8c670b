/**
 * Organisations and API keys. `findKeyByHash` runs on every request, so its answers are cached in
 * process (`internal/KeyCache.ts`), each with the organisation's `access_version` it was read at.
 * Every write below that changes what an answer holds (a key's revocation, the settings, the test
 * clock) raises that version in its own statement, and `RateLimiter.take` reads it in every
 * request's first statement: `Access.admit` reads a key again when its answer is older.
 */
import { Access, type Organisation } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { qualified } from "./internal/columns.js"
import { orStorageError } from "./internal/errors.js"
import { executeOn } from "./internal/execute.js"
import { defaultCacheOptions, KeyCache, type KeyCacheOptions, raiseAll, register } from "./internal/KeyCache.js"
import {
  type ApiKeyRow,
  apiKeyTable,
  type OrganisationRow,
  organisationTable,
  toApiKey,
  toOrganisation
} from "./internal/rows.js"
import { count, iso } from "./internal/storedValues.js"
import { textArray } from "./internal/values.js"
import accessVersion from "./migrations/0027_access_version.js"

export const migrations = { "0027_access_version": accessVersion }

// Sent as it is (`internal/execute.ts`): a key's first use on a process, 4,000 of them when as
// many customers come back after a restart, each otherwise paying `@effect/sql`'s compile and span.
const LOOKUP = `SELECT ${qualified("k", apiKeyTable.selected)},
    o.name AS organisation_name, o.settings AS organisation_settings,
    o.test_mode AS organisation_test_mode, o.clock_frozen_at AS organisation_clock_frozen_at,
    o.access_version
  FROM api_keys k JOIN organisations o ON o.id = k.organisation_id
  WHERE k.hash = $1`

interface KeyWithOrganisationRow extends ApiKeyRow {
  readonly organisation_name: string
  readonly organisation_settings: unknown
  readonly organisation_test_mode: boolean
  readonly organisation_clock_frozen_at: Date | string | null
  readonly access_version: string
}

/** What a write that raised an organisation's access version returns of it. */
interface RaisedRow {
  readonly organisation_id: Organisation.OrganisationId
  readonly access_version: string
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
}

export const makeWith = (
  options: AccessRepositoryOptions = {}
): Effect.Effect<Context.Tag.Service<typeof Access.AccessRepository>, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = new KeyCache(options.cache ?? defaultCacheOptions)
    register(sql, cache)
    const organisationColumns = sql.literal(organisationTable.selected)
    const keyColumns = sql.literal(apiKeyTable.selected)

    const execute = executeOn(sql)

    const lookup = (hash: string) =>
      execute<KeyWithOrganisationRow>(LOOKUP, [hash]).pipe(
        Effect.flatMap((rows) => {
          if (rows.length === 0) return Effect.succeedNone
          const row = rows[0]
          const version = Number(row.access_version)
          const known = cache.organisation(row.organisation_id, version)
          const organisation =
            known !== undefined
              ? Effect.succeed(known)
              : toOrganisation({
                  id: row.organisation_id,
                  name: row.organisation_name,
                  settings: row.organisation_settings,
                  test_mode: row.organisation_test_mode,
                  clock_frozen_at: row.organisation_clock_frozen_at
                })
          return Effect.map(organisation, (organisation) =>
            Option.some({ key: toApiKey(row), organisation, access_version: version })
          )
        }),
        // Last, so that a key whose stored scopes `toApiKey` refuses fails the lookup too.
        orStorageError("AccessRepository.findKeyByHash")
      )

    // This process's caches need not wait for a request to find out: every one over this client,
    // not only this repository's, since on PGlite none reads the version again. (Inside a
    // transaction that later rolls back, this only costs cache misses.)
    const raised = (rows: ReadonlyArray<RaisedRow>) =>
      Effect.sync(() => {
        for (const row of rows) raiseAll(sql, row.organisation_id, Number(row.access_version))
      })

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
        sql<OrganisationRow & RaisedRow>`UPDATE organisations
          SET ${organisationTable.assignments(sql, { name: settings.name, settings })},
            access_version = access_version + 1
          WHERE id = ${id}::uuid RETURNING ${organisationColumns}, id AS organisation_id, access_version`.pipe(
          Effect.tap(raised),
          orStorageError("AccessRepository.updateSettings"),
          Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeedNone : Effect.asSome(toOrganisation(rows[0]))))
        ),

      // Compare and set: `IS NOT DISTINCT FROM` so that null (real time) compares equal to null.
      setTestClock: (id, expected, frozenAt) =>
        sql<RaisedRow>`UPDATE organisations
          SET clock_frozen_at = ${frozenAt}::timestamptz, access_version = access_version + 1
          WHERE id = ${id}::uuid AND test_mode AND clock_frozen_at IS NOT DISTINCT FROM ${expected}::timestamptz
          RETURNING id AS organisation_id, access_version`.pipe(
          Effect.tap(raised),
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

      // Unknown keys are not cached: a new key works at once, with no version to raise.
      insertKey: (key) =>
        sql`INSERT INTO api_keys ${apiKeyTable.insert(sql, key)}`.pipe(
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

      findKeyByHash: (hash, atLeast) =>
        Effect.suspend(() => {
          const cached = cache.get(hash, Date.now(), atLeast)
          if (cached !== undefined) return Effect.succeed(Option.some(cached))
          return lookup(hash).pipe(
            Effect.tap((found) => {
              if (Option.isSome(found)) cache.put(hash, found.value, Date.now())
            })
          )
        }),

      // No access version raised: it runs for requests (once a minute per key and
      // process), and nothing a cached entry decides (scopes, expiry, revocation, addresses)
      // depends on it; an entry's `last_used_at` may lag, which only what reads the key's row
      // (`keyPage`, `key`) shows. Requests finish out of order: an earlier time never replaces a later.
      touchKeys: (uses) =>
        sql`UPDATE api_keys k SET last_used_at = u.at
          FROM unnest(${textArray(uses.map((use) => use.id))}::uuid[],
            ${textArray(uses.map((use) => use.at))}::timestamptz[]) AS u (id, at)
          WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`.pipe(
          Effect.asVoid,
          orStorageError("AccessRepository.touchKeys")
        ),

      key: (id) =>
        sql<ApiKeyRow>`SELECT ${keyColumns} FROM api_keys WHERE id = ${id}::uuid`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey)),
          orStorageError("AccessRepository.key")
        ),

      // A second revocation keeps the first time: the key was already dead then.
      revokeKey: (id, at) =>
        sql<RaisedRow>`WITH revoked AS (
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${at}::timestamptz) WHERE id = ${id}::uuid
            RETURNING organisation_id
          )
          UPDATE organisations SET access_version = access_version + 1
          WHERE id IN (SELECT organisation_id FROM revoked)
          RETURNING id AS organisation_id, access_version`.pipe(
          Effect.tap(raised),
          Effect.map((rows) => rows.length > 0),
          orStorageError("AccessRepository.revokeKey")
        ),

      // The organisation's version once for all of them. A key that another caller revokes
      // meanwhile is that caller's to return.
      revokeAppsOf: (organisationId, accountId, at) =>
        sql<ApiKeyRow & { readonly raised: string }>`WITH revoked AS (
            UPDATE api_keys SET revoked_at = ${at}::timestamptz
            WHERE organisation_id = ${organisationId}::uuid AND created_by = ${accountId}::uuid
              AND grant_id IS NOT NULL AND revoked_at IS NULL
            RETURNING ${keyColumns}
          ), bumped AS (
            UPDATE organisations SET access_version = access_version + 1
            WHERE id = ${organisationId}::uuid AND EXISTS (SELECT 1 FROM revoked)
            RETURNING access_version
          )
          SELECT revoked.*, bumped.access_version AS raised FROM revoked, bumped`.pipe(
          Effect.tap((rows) =>
            raised(rows.map((row) => ({ organisation_id: organisationId, access_version: row.raised })))
          ),
          // As they were: live.
          Effect.map((rows) => rows.map((row) => ({ ...toApiKey(row), revoked_at: null }))),
          orStorageError("AccessRepository.revokeAppsOf")
        )
    })
  })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Access.AccessRepository>,
  never,
  SqlClient.SqlClient
> = makeWith()

export const layerWith = (
  options: AccessRepositoryOptions = {}
): Layer.Layer<Access.AccessRepository, never, SqlClient.SqlClient> =>
  Layer.effect(Access.AccessRepository, makeWith(options))

export const layer: Layer.Layer<Access.AccessRepository, never, SqlClient.SqlClient> = layerWith()
