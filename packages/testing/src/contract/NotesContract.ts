/**
 * The storage contract of notes and of API key owners: every adapter must pass it unchanged, like
 * every other suite here.
 */
import { Access, Calls, Notes, Organisation } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { at, ids, newestFirst, newId, page, type StoragePorts, seed, uuid } from "./Fixtures.js"

type Note = Notes.Note

const note = (overrides: Partial<Note> = {}): Note => ({
  id: newId(Notes.NoteId),
  entity_type: "contact",
  entity_id: uuid(),
  type: "note",
  body: "Called about the renewal",
  call_id: null,
  author_key_id: null,
  pinned: false,
  created_at: at(0),
  ...overrides
})

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test } = contractCases(makeLayer, options)

  describe(`notes storage contract: ${name}`, () => {
    test(
      "round-trips every field, only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Notes.NoteRepository
        const entity = uuid()
        const full = note({
          entity_type: "deal",
          entity_id: entity,
          type: "call",
          body: 'Příliš žluťoučký kůň said "yes"\nfollow up Monday',
          call_id: newId(Calls.CallId),
          author_key_id: newId(Access.KeyId),
          pinned: true,
          created_at: at(5)
        })
        const bare = note({ entity_type: "deal", entity_id: entity, created_at: at(1) })
        yield* repo.insert(a.id, full)
        yield* repo.insert(a.id, bare)
        expect(yield* repo.list(a.id, { entityType: "deal", entityId: entity }, page(50))).toEqual([full, bare])
        expect(yield* repo.list(b.id, { entityType: "deal", entityId: entity }, page(50))).toEqual([])
        expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
        const again = yield* Effect.either(repo.insert(a.id, full))
        expect(again._tag).toBe("Left")
      })
    )

    test(
      "filters by entity type and id, newest first with ties by id, paged",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Notes.NoteRepository
        const entity = uuid()
        const mine = [3, 7, 3, 3, 0, 7].map((t) => note({ entity_id: entity, created_at: at(t) }))
        // The same id under another type, and another entity of the same type: neither matches.
        const sameIdOtherType = note({ entity_type: "company", entity_id: entity, created_at: at(4) })
        const otherEntity = note({ entity_id: uuid(), created_at: at(4) })
        for (const row of [...mine, sameIdOtherType, otherEntity]) yield* repo.insert(a.id, row)
        const list = (limit: number, offset: number) =>
          repo.list(a.id, { entityType: "contact", entityId: entity }, page(limit, offset))
        const expected = ids(newestFirst(mine))
        expect(ids(yield* list(50, 0))).toEqual(expected)
        expect(ids(yield* list(2, 0))).toEqual(expected.slice(0, 3))
        expect(ids(yield* list(2, 2))).toEqual(expected.slice(2, 5))
        expect(ids(yield* list(2, 6))).toEqual([])
        expect(ids(yield* repo.list(a.id, { entityType: "company", entityId: entity }, page(50)))).toEqual([
          sameIdOtherType.id
        ])
        expect(yield* repo.list(a.id, {}, page(50))).toHaveLength(8)
      })
    )

    test(
      "reads one note, moves only its pin, and filters by the pin",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Notes.NoteRepository
        const entity = uuid()
        const [older, newer] = [1, 2].map((t) => note({ entity_id: entity, created_at: at(t) }))
        yield* repo.insert(a.id, older!)
        yield* repo.insert(a.id, newer!)
        expect(yield* repo.get(a.id, older!.id)).toEqual(Option.some(older))
        expect(yield* repo.get(b.id, older!.id)).toEqual(Option.none())
        expect(yield* repo.pin(b.id, older!.id, true)).toEqual(Option.none())
        expect(yield* repo.pin(a.id, newId(Notes.NoteId), true)).toEqual(Option.none())

        expect(yield* repo.pin(a.id, older!.id, true)).toEqual(Option.some({ ...older, pinned: true }))
        expect(yield* repo.get(a.id, older!.id)).toEqual(Option.some({ ...older, pinned: true }))
        const filtered = (pinned: boolean) =>
          repo.list(a.id, { entityType: "contact", entityId: entity, pinned }, page(50))
        expect(ids(yield* filtered(true))).toEqual([older!.id])
        expect(ids(yield* filtered(false))).toEqual([newer!.id])
        expect(ids(yield* repo.list(a.id, { entityId: entity }, page(50)))).toEqual([newer!.id, older!.id])

        expect(yield* repo.pin(a.id, older!.id, false)).toEqual(Option.some(older))
        expect(yield* filtered(true)).toEqual([])
      })
    )

    test(
      "stores a key's owner, or its lack of one",
      Effect.gen(function* () {
        const { a } = yield* seed
        const access = yield* Access.AccessRepository
        const owner = newId(Organisation.UserId)
        const base = {
          organisation_id: a.id,
          name: null,
          scopes: ["read" as const],
          expires_at: null,
          allowed_ips: [],
          revoked_at: null,
          created_at: at(0),
          created_by: null,
          last_used_at: null,
          grant_id: null,
          client_id: null
        }
        const owned: Access.ApiKeyRecord = { ...base, id: newId(Access.KeyId), hash: "a".repeat(64), owner_id: owner }
        const nobody: Access.ApiKeyRecord = { ...base, id: newId(Access.KeyId), hash: "b".repeat(64), owner_id: null }
        yield* access.insertKey(owned)
        yield* access.insertKey(nobody)
        expect(Option.getOrThrow(yield* access.findKeyByHash(owned.hash)).key.owner_id).toBe(owner)
        expect(Option.getOrThrow(yield* access.findKeyByHash(nobody.hash)).key.owner_id).toBeNull()
      })
    )
  })
}
