/**
 * The authorization server's records in memory (`Access.OAuthStore`), store-wide (`State.oauth`):
 * each call is one atomic change, so of concurrent claims the first wins, and inside a unit of
 * work a change rolls back with it.
 */
import { Access } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { copy, copyOut, instant, read, type State, type Store, write } from "./internal/Store.js"

// A model's name has no space: the first one ends it.
const keyOf = (model: string, id: string): string => `${model} ${id}`

const lapsed = (record: Access.OAuthRecord, now: number) =>
  record.expires_at !== null && instant(record.expires_at) <= now

export const make = (store: Store): Context.Tag.Service<typeof Access.OAuthStore> => {
  const change = <A>(f: (records: State["oauth"]) => readonly [A, State["oauth"]]) =>
    write(store, (state) => {
      const [result, oauth] = f(state.oauth)
      return [Either.right(result), oauth === state.oauth ? state : { ...state, oauth }]
    })
  const findWhere = (now: string, matches: (record: Access.OAuthRecord) => boolean) =>
    read(store, (state) => {
      const at = instant(now)
      return Option.map(
        Option.fromNullable([...HashMap.values(state.oauth)].find((record) => matches(record) && !lapsed(record, at))),
        copyOut
      )
    })

  return Access.OAuthStore.of({
    upsert: (input) =>
      Effect.flatMap(copy(input), (record) =>
        change((records) => [undefined, HashMap.set(records, keyOf(record.model, record.id), record)])
      ),

    find: (model, id, now) =>
      read(store, (state) =>
        Option.map(
          Option.filter(HashMap.get(state.oauth, keyOf(model, id)), (record) => !lapsed(record, instant(now))),
          copyOut
        )
      ),

    findByUid: (model, uid, now) => findWhere(now, (record) => record.model === model && record.uid === uid),

    findByUserCode: (model, userCode, now) =>
      findWhere(now, (record) => record.model === model && record.user_code === userCode),

    consume: (model, id, at) =>
      change((records) => {
        const key = keyOf(model, id)
        const record = HashMap.get(records, key)
        if (Option.isNone(record) || record.value.consumed_at !== null) return [undefined, records]
        return [undefined, HashMap.set(records, key, { ...record.value, consumed_at: at })]
      }),

    destroy: (model, id) => change((records) => [undefined, HashMap.remove(records, keyOf(model, id))]),

    revokeGrant: (grantId) =>
      change((records) => [
        undefined,
        HashMap.filter(
          records,
          (record) => record.grant_id !== grantId && !(record.model === "Grant" && record.id === grantId)
        )
      ]),

    claim: (model, id, input) =>
      Effect.flatMap(copy(input), (payload) =>
        change((records) => {
          const key = keyOf(model, id)
          const stored = HashMap.get(records, key)
          if (Option.isSome(stored)) return [copyOut(stored.value.payload), records]
          return [copyOut(payload), HashMap.set(records, key, Access.bareRecord(model, id, payload))]
        })
      ),

    purge: (before) =>
      change((records) => {
        const cutoff = instant(before)
        const kept = HashMap.filter(
          records,
          (record) => record.expires_at === null || instant(record.expires_at) >= cutoff
        )
        const purged = HashMap.size(records) - HashMap.size(kept)
        return [purged, purged === 0 ? records : kept]
      })
  })
}
