/**
 * The idempotency port (`Idempotency.IdempotencyStore`): a claimed key finds its saved response
 * while it is fresh, the response commits or rolls back with the effect it describes, and a second
 * claimant of a held key never sees nothing.
 */
import { Contacts, Errors, Idempotency, Transaction } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { at, Boom, newKey, person, type StoragePorts, seed, sha256 } from "./Fixtures.js"

type Contact = Contacts.Contact

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`IdempotencyStore storage contract: ${name}`, () => {
    // Opaque to the store: kept byte for byte, line feeds, quotes and all.
    const payload = (body: string): string => `201\n{"location":"/api/v1/contacts/1"}\n${body} \u00e9\u2028`
    const record = (created_at: string, body = '{"id":"1"}'): Idempotency.IdempotencyRecord => ({
      fingerprint: `POST /api/v1/contacts ${sha256(body)}`,
      payload: payload(body),
      created_at
    })
    // The port's calls belong inside a unit of work.
    const claim = (scope: Idempotency.IdempotencyScope, notBefore: string) =>
      Effect.flatMap(Transaction.Transaction, (tx) =>
        tx.run(Effect.flatMap(Idempotency.IdempotencyStore, (store) => store.claim(scope, notBefore)))
      )
    const save = (scope: Idempotency.IdempotencyScope, value: Idempotency.IdempotencyRecord, notBefore = at(-1)) =>
      Effect.flatMap(Transaction.Transaction, (tx) =>
        tx.run(Effect.flatMap(Idempotency.IdempotencyStore, (store) => store.save(scope, value, notBefore)))
      )

    test(
      "claim finds nothing until a save, then the record while it is not older than notBefore",
      Effect.gen(function* () {
        const { a } = yield* seed
        const [key, otherKey] = [yield* newKey(a.id), yield* newKey(a.id)]
        const scope = { keyId: key.id, idempotencyKey: "order-1" }
        expect(Option.isNone(yield* claim(scope, at(0)))).toBe(true)
        const saved = record(at(100))
        yield* save(scope, saved)
        expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(saved)
        expect(Option.getOrThrow(yield* claim(scope, at(100)))).toEqual(saved)
        expect(Option.isNone(yield* claim(scope, at(101)))).toBe(true)
        expect(Option.isNone(yield* claim({ keyId: otherKey.id, idempotencyKey: "order-1" }, at(0)))).toBe(true)
        expect(Option.isNone(yield* claim({ keyId: key.id, idempotencyKey: "order-2" }, at(0)))).toBe(true)
      })
    )

    test(
      "save replaces an expired record of the same key, never one made at or after notBefore",
      Effect.gen(function* () {
        const { a } = yield* seed
        const key = yield* newKey(a.id)
        const scope = { keyId: key.id, idempotencyKey: "k" }
        expect(yield* save(scope, record(at(0), "first"))).toBe(true)
        const second = record(at(50), "second")
        expect(yield* save(scope, second, at(1))).toBe(true)
        expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(second)
        // A record another request stored after this one's claim looked: left as it is.
        expect(yield* save(scope, record(at(60), "third"), at(50))).toBe(false)
        expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(second)
      })
    )

    test(
      "purgeBefore deletes strictly older records and returns how many",
      Effect.gen(function* () {
        const { a } = yield* seed
        const key = yield* newKey(a.id)
        const scope = (idempotencyKey: string) => ({ keyId: key.id, idempotencyKey })
        yield* save(scope("t0"), record(at(0)))
        yield* save(scope("t10"), record(at(10)))
        yield* save(scope("t20"), record(at(20)))
        const store = yield* Idempotency.IdempotencyStore
        expect(yield* store.purgeBefore(at(10))).toBe(1)
        expect(Option.isNone(yield* claim(scope("t0"), at(-1)))).toBe(true)
        expect(Option.isSome(yield* claim(scope("t10"), at(-1)))).toBe(true)
        expect(Option.isSome(yield* claim(scope("t20"), at(-1)))).toBe(true)
        expect(yield* store.purgeBefore(at(10))).toBe(0)
      })
    )

    test(
      "the stored response and the effect it describes commit or roll back together",
      Effect.gen(function* () {
        const { a } = yield* seed
        const key = yield* newKey(a.id)
        const tx = yield* Transaction.Transaction
        const store = yield* Idempotency.IdempotencyStore
        const repo = yield* Contacts.ContactRepository
        const scope = { keyId: key.id, idempotencyKey: "create-ann" }
        const attempt = (contact: Contact, fail: boolean) =>
          tx.run(
            Effect.gen(function* () {
              const existing = yield* store.claim(scope, at(0))
              expect(Option.isNone(existing)).toBe(true)
              yield* repo.insert(a.id, contact)
              yield* store.save(scope, record(at(1), contact.id), at(0))
              if (fail) return yield* new Boom({ step: "after save" })
            })
          )
        const lost = person()
        expect((yield* Effect.flip(attempt(lost, true)))._tag).toBe("Boom")
        expect(Option.isNone(yield* claim(scope, at(0)))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, lost.id))).toBe(true)

        const kept = person()
        yield* attempt(kept, false)
        expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(record(at(1), kept.id))
        expect(Option.isSome(yield* repo.get(a.id, kept.id))).toBe(true)
      })
    )

    concurrent(
      "while one unit holds a key, another claimant is told so or waits and sees the saved record, never nothing",
      Effect.gen(function* () {
        const { a } = yield* seed
        const key = yield* newKey(a.id)
        const tx = yield* Transaction.Transaction
        const store = yield* Idempotency.IdempotencyStore
        const scope = { keyId: key.id, idempotencyKey: "slow" }
        const claimed = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const saved = record(at(5), "first")
        const first = yield* Effect.fork(
          tx.run(
            Effect.gen(function* () {
              expect(Option.isNone(yield* store.claim(scope, at(0)))).toBe(true)
              yield* Deferred.succeed(claimed, undefined)
              yield* Deferred.await(gate)
              yield* store.save(scope, saved, at(0))
            })
          )
        )
        yield* Deferred.await(claimed)
        const second = yield* Effect.fork(Effect.either(tx.run(store.claim(scope, at(0)))))
        yield* Effect.sleep("50 millis")
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(first)
        const outcome = yield* Fiber.join(second)
        if (Either.isLeft(outcome)) {
          expect(outcome.left).toBeInstanceOf(Errors.IdempotencyInProgress)
        } else {
          expect(Option.getOrNull(outcome.right)).toEqual(saved)
        }
        expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(saved)
      })
    )
  })
}
