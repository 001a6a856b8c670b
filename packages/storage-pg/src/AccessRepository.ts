import { Access } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { orStorageError } from "./internal/errors.js"
import { type ApiKeyRow, count, type OrganisationRow, toApiKey, toOrganisation } from "./internal/rows.js"
import { json, textArray } from "./internal/values.js"

interface KeyWithOrganisationRow extends ApiKeyRow {
  readonly organisation_name: string
  readonly organisation_settings: unknown
}

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Access.AccessRepository.of({
    insertOrganisation: (organisation, at) =>
      sql`INSERT INTO organisations (id, name, settings, created_at)
        VALUES (${organisation.id}::uuid, ${organisation.name}, ${json(organisation.settings)}::jsonb, ${at}::timestamptz)`.pipe(
        Effect.asVoid,
        orStorageError("AccessRepository.insertOrganisation")
      ),

    getOrganisation: (id) =>
      sql<OrganisationRow>`SELECT id, name, settings FROM organisations WHERE id = ${id}::uuid`.pipe(
        orStorageError("AccessRepository.getOrganisation"),
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeedNone : Effect.asSome(toOrganisation(rows[0]))))
      ),

    // The organisation's name lives in its settings document; the column mirrors it.
    updateSettings: (id, settings) =>
      sql<OrganisationRow>`UPDATE organisations SET name = ${settings.name}, settings = ${json(settings)}::jsonb
        WHERE id = ${id}::uuid RETURNING id, name, settings`.pipe(
        orStorageError("AccessRepository.updateSettings"),
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeedNone : Effect.asSome(toOrganisation(rows[0]))))
      ),

    countOrganisations: sql<{ n: string }>`SELECT count(*) AS n FROM organisations`.pipe(
      Effect.map((rows) => count(rows[0].n)),
      orStorageError("AccessRepository.countOrganisations")
    ),

    listOrganisations: sql<OrganisationRow>`SELECT id, name, settings FROM organisations ORDER BY created_at, id`.pipe(
      orStorageError("AccessRepository.listOrganisations"),
      Effect.flatMap(Effect.forEach(toOrganisation))
    ),

    insertKey: (key) =>
      sql`INSERT INTO api_keys (id, organisation_id, name, hash, scopes, allowed_ips, expires_at, revoked_at, created_at,
          owner_id)
        VALUES (${key.id}::uuid, ${key.organisation_id}::uuid, ${key.name}, ${key.hash}, ${textArray(key.scopes)}::text[],
          ${textArray(key.allowed_ips)}::text[], ${key.expires_at}::timestamptz, ${key.revoked_at}::timestamptz,
          ${key.created_at}::timestamptz, ${key.owner_id}::uuid)`.pipe(
        Effect.asVoid,
        orStorageError("AccessRepository.insertKey")
      ),

    findKeyByHash: (hash) =>
      sql<KeyWithOrganisationRow>`SELECT k.id, k.organisation_id, k.name, k.hash, k.scopes, k.allowed_ips, k.expires_at,
          k.revoked_at, k.created_at, k.owner_id, o.name AS organisation_name, o.settings AS organisation_settings
        FROM api_keys k JOIN organisations o ON o.id = k.organisation_id
        WHERE k.hash = ${hash}`.pipe(
        orStorageError("AccessRepository.findKeyByHash"),
        Effect.flatMap((rows) => {
          if (rows.length === 0) return Effect.succeedNone
          const row = rows[0]
          return toOrganisation({
            id: row.organisation_id,
            name: row.organisation_name,
            settings: row.organisation_settings
          }).pipe(Effect.map((organisation) => Option.some({ key: toApiKey(row), organisation })))
        })
      ),

    // A second revocation keeps the first time: the key was already dead then.
    revokeKey: (id, at) =>
      sql`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${at}::timestamptz) WHERE id = ${id}::uuid RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStorageError("AccessRepository.revokeKey")
      )
  })
})

export const layer = Layer.effect(Access.AccessRepository, make)
