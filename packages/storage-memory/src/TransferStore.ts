/**
 * An organisation read out of the memory store whole and written back (`Transfer.TransferStore`).
 * Lines: `{"type": "organisation", "row": ...}`, one `{"type": "api_key", "row": ...}` per key, then
 * one `{"type": <slot>, "key": ..., "value": ...}` per entry of each of the tenant's slots (see
 * `Store.slot`), indexes included, so that a tenant reads back as it was. The store is one
 * immutable value, so the export reads one snapshot without holding the lock while its reader is slow.
 * Not exported: the people of the store and the audit trail, kept beside the tenants rather than
 * in a slot (storage-pg's `TransferStore.NOT_CARRIED` says why).
 */
import { Errors, type Organisation, Transfer, Webhooks } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import {
  type OrganisationRow,
  read,
  type Slot,
  type Store,
  slots,
  type Tenant,
  tenant,
  write
} from "./internal/Store.js"

const PAGE = 500

const byKey = (a: readonly [string, unknown], b: readonly [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)

export const make = (store: Store): Context.Tag.Service<typeof Transfer.TransferStore> => {
  const slotsByName = () => new Map(slots().map((slot) => [slot.name, slot]))

  return Transfer.TransferStore.of({
    kind: "memory",
    schema: 1,

    exportItems: (organisationId, options, emit) =>
      Effect.gen(function* () {
        const snapshot = yield* read(store, (state) => {
          const row = HashMap.get(state.organisations, organisationId)
          if (Option.isNone(row)) return undefined
          const keys = [...HashMap.values(state.keys)]
            .filter((key) => key.organisation_id === organisationId)
            .sort((a, b) => (a.id < b.id ? -1 : 1))
          return { row: row.value, keys, tenant: tenant(state, organisationId) }
        })
        if (snapshot === undefined) return yield* new Errors.NotFound({ detail: "no such organisation" })
        let page: Array<string> = []
        const push = (line: string) => {
          page.push(line)
          if (page.length < PAGE) return Effect.void
          const full = page
          page = []
          return emit(full)
        }
        yield* push(JSON.stringify({ type: "organisation", row: snapshot.row }))
        for (const key of snapshot.keys) yield* push(JSON.stringify({ type: "api_key", row: key }))
        const ordered = [...slots()].sort((a, b) => (a.name < b.name ? -1 : 1))
        for (const slot of ordered) {
          const redact = options.includeSecrets ? undefined : slot.codec.withoutSecrets
          const entries = [...slot.codec.entries(slot.get(snapshot.tenant))].sort(byKey)
          for (const [key, value] of entries) {
            yield* push(JSON.stringify({ type: slot.name, key, value: redact === undefined ? value : redact(value) }))
          }
        }
        if (page.length > 0) yield* emit(page)
      }),

    importItems: <E>(organisationId: Organisation.OrganisationId, items: Stream.Stream<Transfer.ItemLine, E>) =>
      Effect.gen(function* () {
        const named = slotsByName()
        let organisation: { readonly line: number; readonly row: OrganisationRow } | undefined
        const keys: Array<{ readonly line: number; readonly row: Transfer.ItemLine["value"] }> = []
        const entries = new Map<Slot<unknown>, Array<readonly [string, unknown]>>()
        yield* Stream.runForEach(items, (item) =>
          Effect.gen(function* () {
            const refuse = (message: string) => Transfer.refusal(item.line, item.type, "invalid_line", message)
            if ((organisation === undefined) !== (item.type === "organisation")) {
              return yield* refuse("the organisation comes first, and once")
            }
            if (item.type === "organisation") {
              const row = item.value.row as OrganisationRow | undefined
              if (row?.organisation?.id !== organisationId)
                return yield* refuse("the organisation's id is not the header's")
              organisation = { line: item.line, row }
              return
            }
            if (item.type === "api_key") {
              const row = item.value.row as
                | {
                    readonly organisation_id?: unknown
                    readonly created_by?: unknown
                    readonly last_used_at?: unknown
                    readonly grant_id?: unknown
                    readonly client_id?: unknown
                  }
                | undefined
              if (row?.organisation_id !== organisationId) return yield* refuse("a key of another organisation")
              // An export made before keys knew their maker and their last use, or before connected
              // apps had keys: none known. (A field the row has keeps its place, so that the key
              // exports again as it came.)
              const known = {
                ...row,
                created_by: row.created_by ?? null,
                last_used_at: row.last_used_at ?? null,
                grant_id: row.grant_id ?? null,
                client_id: row.client_id ?? null
              }
              keys.push({ line: item.line, row: known as Transfer.ItemLine["value"] })
              return
            }
            const slot = named.get(item.type)
            if (slot === undefined)
              return yield* Transfer.refusal(item.line, item.type, "unknown_type", "no slot of that name")
            const { key, value } = item.value
            if (typeof key !== "string" || value === undefined)
              return yield* refuse("each entry has a string key and a value")
            if (slot.name === "events" && !/^[1-9][0-9]{0,18}$/.test(key))
              return yield* refuse("an event's key is its id")
            const list = entries.get(slot) ?? []
            list.push([key, value])
            entries.set(slot, list)
          })
        )
        if (organisation === undefined) {
          return yield* Transfer.refusal(1, null, "invalid_line", "the file holds no organisation")
        }
        // A hook exported without its secret gets a new one.
        const hooks = [...entries].find(([slot]) => slot.name === "webhook_hooks")?.[1] ?? []
        const renewed: Array<readonly [string, unknown]> = []
        for (const [id, row] of hooks) {
          const record = (row as { readonly record: Webhooks.HookRecord }).record
          renewed.push([
            id,
            record.secret === null
              ? { ...(row as object), record: { ...record, secret: yield* Webhooks.Signature.generateSecret } }
              : row
          ])
        }
        if (hooks.length > 0) entries.set([...entries.keys()].find((slot) => slot.name === "webhook_hooks")!, renewed)
        const organisationRow = organisation.row
        yield* write<void, Errors.OrganisationExists | Errors.ImportFailed>(store, (state) => {
          if (HashMap.has(state.organisations, organisationId)) {
            return [
              Either.left(
                new Errors.OrganisationExists({
                  detail: { organisation_id: organisationId, message: "the store already holds this organisation" }
                })
              ),
              state
            ]
          }
          let { keys: keyRows, keyIdsByHash } = state
          for (const { line, row } of keys) {
            const key = row as unknown as {
              readonly id: string
              readonly hash: string
              readonly grant_id: string | null
            }
            if (
              HashMap.has(keyRows, key.id) ||
              HashMap.has(keyIdsByHash, key.hash) ||
              (key.grant_id !== null && HashMap.some(keyRows, (other) => other.grant_id === key.grant_id))
            ) {
              return [
                Either.left(Transfer.refusal(line, "api_key", "not_stored", "the store already holds this key")),
                state
              ]
            }
            keyRows = HashMap.set(keyRows, key.id, row as never)
            keyIdsByHash = HashMap.set(keyIdsByHash, key.hash, key.id)
          }
          let t: Tenant = { slots: [] }
          for (const [slot, list] of entries) t = slot.set(t, slot.codec.fromEntries(list))
          const events = [...entries].find(([slot]) => slot.name === "events")?.[1] ?? []
          const lastEventId = events.reduce((last, [id]) => (BigInt(id) > last ? BigInt(id) : last), state.lastEventId)
          return [
            Either.right(undefined),
            {
              ...state,
              organisations: HashMap.set(state.organisations, organisationId, organisationRow),
              keys: keyRows,
              keyIdsByHash,
              tenants: HashMap.set(state.tenants, organisationId, t),
              lastEventId
            }
          ]
        })
      })
  })
}
