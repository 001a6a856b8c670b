/** Organisations and API keys in memory; keys are found by the hash of the token, never the token. */
import { Access, Errors, type Organisation } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { copy, copyOut, instant, newestFirst, read, type Store, write } from "./internal/Store.js"

const refused = (message: string) => Either.left(new Errors.StorageError({ message }))

export const make = (store: Store): Context.Tag.Service<typeof Access.AccessRepository> => {
  const getOrganisation = (id: Organisation.OrganisationId) =>
    read(store, (state) => Option.map(HashMap.get(state.organisations, id), (row) => copyOut(row.organisation)))
  return Access.AccessRepository.of({
    insertOrganisation: (input, at) =>
      Effect.flatMap(copy(input), (organisation) =>
        write(store, (state) =>
          HashMap.has(state.organisations, organisation.id)
            ? [refused(`duplicate organisation id ${organisation.id}`), state]
            : [
                Either.right(undefined),
                {
                  ...state,
                  organisations: HashMap.set(state.organisations, organisation.id, { organisation, createdAt: at })
                }
              ]
        )
      ),

    getOrganisation,

    // Units of work here run one at a time: what a unit reads stays true until it ends.
    holdOrganisation: getOrganisation,

    // The organisation's name lives in its settings document: replacing one renames it.
    updateSettings: (id, input) =>
      Effect.flatMap(copy(input), (settings) =>
        write(store, (state) => {
          const row = HashMap.get(state.organisations, id)
          if (Option.isNone(row)) return [Either.right(Option.none()), state]
          const organisation = { ...row.value.organisation, name: settings.name, settings }
          return [
            Either.right(Option.some(copyOut(organisation))),
            {
              ...state,
              organisations: HashMap.set(state.organisations, id, { ...row.value, organisation })
            }
          ]
        })
      ),

    setTestClock: (id, expected, frozenAt) =>
      write(store, (state) => {
        const row = HashMap.get(state.organisations, id)
        const clock = Option.isSome(row) ? row.value.organisation.test_clock : undefined
        if (Option.isNone(row) || clock === undefined || clock.frozen_at !== expected) {
          return [Either.right(false), state]
        }
        const organisation = { ...row.value.organisation, test_clock: { frozen_at: frozenAt } }
        return [
          Either.right(true),
          { ...state, organisations: HashMap.set(state.organisations, id, { ...row.value, organisation }) }
        ]
      }),

    countOrganisations: read(store, (state) => HashMap.size(state.organisations)),

    listOrganisations: read(store, (state) =>
      [...HashMap.values(state.organisations)]
        .sort((x, y) => instant(x.createdAt) - instant(y.createdAt) || (x.organisation.id < y.organisation.id ? -1 : 1))
        .map((row) => copyOut(row.organisation))
    ),

    organisationPage: (page) =>
      read(store, (state) =>
        [...HashMap.values(state.organisations)]
          .map(({ organisation, createdAt }) => ({
            id: organisation.id,
            name: organisation.name,
            timezone: organisation.settings.timezone,
            default_currency: organisation.settings.default_currency,
            created_at: createdAt
          }))
          .sort(newestFirst)
          .slice(page.offset, page.offset + page.limit + 1)
      ),

    insertKey: (input) =>
      Effect.flatMap(copy(input), (key) =>
        write(store, (state) => {
          if (!HashMap.has(state.organisations, key.organisation_id)) {
            return [refused(`no organisation ${key.organisation_id} for key ${key.id}`), state]
          }
          if (HashMap.has(state.keys, key.id) || HashMap.has(state.keyIdsByHash, key.hash)) {
            return [refused(`duplicate key ${key.id}`), state]
          }
          // One key per grant, as the unique column on PostgreSQL.
          if (key.grant_id !== null && HashMap.some(state.keys, (other) => other.grant_id === key.grant_id)) {
            return [refused(`a key for grant ${key.grant_id} exists`), state]
          }
          return [
            Either.right(undefined),
            {
              ...state,
              keys: HashMap.set(state.keys, key.id, key),
              keyIdsByHash: HashMap.set(state.keyIdsByHash, key.hash, key.id)
            }
          ]
        })
      ),

    // A connected app's key is the one with a grant.
    keyPage: (organisationId, page, kind) =>
      read(store, (state) =>
        [...HashMap.values(state.keys)]
          .filter((key) => key.organisation_id === organisationId && (key.grant_id !== null) === (kind === "apps"))
          .sort(newestFirst)
          .slice(page.offset, page.offset + page.limit + 1)
          .map(copyOut)
      ),

    findKeyByHash: (hash) =>
      read(store, (state) =>
        Option.gen(function* () {
          const key = yield* HashMap.get(state.keys, yield* HashMap.get(state.keyIdsByHash, hash))
          const row = yield* HashMap.get(state.organisations, key.organisation_id)
          return { key: copyOut(key), organisation: copyOut(row.organisation) }
        })
      ),

    // Requests finish out of order: an earlier time never replaces a later one.
    touchKeys: (uses) =>
      write(store, (state) => {
        let keys = state.keys
        for (const { id, at } of uses) {
          const key = HashMap.get(keys, id)
          if (Option.isNone(key)) continue
          const last = key.value.last_used_at
          if (last !== null && instant(last) >= instant(at)) continue
          keys = HashMap.set(keys, id, { ...key.value, last_used_at: at })
        }
        return [Either.right(undefined), keys === state.keys ? state : { ...state, keys }]
      }),

    key: (id) => read(store, (state) => Option.map(HashMap.get(state.keys, id), copyOut)),

    // Revoking twice succeeds and keeps the first time: the key is revoked either way.
    revokeKey: (id, at) =>
      write(store, (state) => {
        const key = HashMap.get(state.keys, id)
        if (Option.isNone(key)) return [Either.right(false), state]
        if (key.value.revoked_at !== null) return [Either.right(true), state]
        return [Either.right(true), { ...state, keys: HashMap.set(state.keys, id, { ...key.value, revoked_at: at }) }]
      }),

    revokeAppsOf: (organisationId, accountId, at) =>
      write(store, (state) => {
        const live = [...HashMap.values(state.keys)].filter(
          (key) =>
            key.organisation_id === organisationId &&
            key.created_by === accountId &&
            key.grant_id !== null &&
            key.revoked_at === null
        )
        if (live.length === 0) return [Either.right([]), state]
        const keys = live.reduce((all, key) => HashMap.set(all, key.id, { ...key, revoked_at: at }), state.keys)
        return [Either.right(live.map(copyOut)), { ...state, keys }]
      })
  })
}
