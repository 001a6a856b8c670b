/**
 * The company port (`CompanyRepository`): rows round-trip whole, archive hides them, and lists
 * search literally and page in one order on every adapter.
 */
import { Companies } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { at, firm, ids, newestFirst, newId, page, type StoragePorts, seed } from "./Fixtures.js"

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test } = contractCases(makeLayer, options)

  describe(`CompanyRepository storage contract: ${name}`, () => {
    test(
      "round-trips every field, and only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Companies.CompanyRepository
        const acme = firm({
          name: "Acme s.r.o.",
          domain: "acme.cz",
          email: "info@acme.cz",
          vat_number: "CZ12345678",
          city: "Brno",
          country: "CZ",
          custom: { segment: "smb", employees: 12, nested: { list: [1, "two"] } },
          created_at: at(1),
          updated_at: at(2)
        })
        const expected = structuredClone(acme)
        yield* repo.insert(a.id, acme)
        ;(acme.custom as { segment: string }).segment = "changed after insert"
        expect(Option.getOrThrow(yield* repo.get(a.id, acme.id))).toEqual(expected)
        expect(Option.isNone(yield* repo.get(b.id, acme.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, newId(Companies.CompanyId)))).toBe(true)
        expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
        expect(yield* repo.countLive(a.id)).toBe(1)
        expect(yield* repo.countLive(b.id)).toBe(0)
      })
    )

    test(
      "update, archive and isolation between organisations",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Companies.CompanyRepository
        const acme = firm({ name: "Acme", created_at: at(1) })
        const globex = firm({ name: "Globex", created_at: at(2) })
        yield* repo.insert(a.id, acme)
        yield* repo.insert(a.id, globex)

        const changed = {
          ...acme,
          name: "Acme Group",
          domain: "acme.com",
          city: "Praha",
          custom: { x: true },
          updated_at: at(10)
        }
        yield* repo.update(a.id, changed)
        expect(Option.getOrThrow(yield* repo.get(a.id, acme.id))).toEqual(changed)
        yield* Effect.either(repo.update(b.id, { ...changed, name: "Hijacked" }))
        expect(Option.getOrThrow(yield* repo.get(a.id, acme.id))).toEqual(changed)
        expect(Option.isNone(yield* repo.get(b.id, acme.id))).toBe(true)

        expect(yield* repo.archive(b.id, acme.id, at(20))).toBe(false)
        expect(yield* repo.archive(a.id, acme.id, at(20))).toBe(true)
        expect(yield* repo.archive(a.id, acme.id, at(21))).toBe(false)
        expect(yield* repo.archive(a.id, newId(Companies.CompanyId), at(21))).toBe(false)
        expect(Option.isNone(yield* repo.get(a.id, acme.id))).toBe(true)
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([globex.id])
        expect(yield* repo.countLive(a.id)).toBe(1)
        yield* Effect.either(repo.update(a.id, { ...changed, name: "Ghost" }))
        expect(Option.isNone(yield* repo.get(a.id, acme.id))).toBe(true)
      })
    )

    test(
      "list filters: q over name, domain and email (literal %, _, *, \\), updated_since inclusive",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Companies.CompanyRepository
        const acme = firm({
          name: "Acme",
          domain: "acme.cz",
          email: "info@acme.cz",
          created_at: at(1),
          updated_at: at(100)
        })
        const beta = firm({
          name: "Beta_Works",
          domain: "beta.io",
          email: "hello@zeta.io",
          created_at: at(2),
          updated_at: at(200)
        })
        const gamma = firm({
          name: "Gamma 100%",
          domain: null,
          email: "info@acme.cz",
          created_at: at(3),
          updated_at: at(300)
        })
        const delta = firm({ name: "Delta*", domain: "d\\x.org", created_at: at(4), updated_at: at(400) })
        const gone = firm({ name: "Acme Old", created_at: at(5), updated_at: at(500) })
        // Companies carry no uniqueness rule on email: acme and gamma share one.
        for (const company of [acme, beta, gamma, delta, gone]) yield* repo.insert(a.id, company)
        yield* repo.insert(b.id, firm({ name: "Acme", created_at: at(6) }))
        expect(yield* repo.archive(a.id, gone.id, at(600))).toBe(true)

        const list = (filter: Companies.CompanyFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* list({})).toEqual(ids([delta, gamma, beta, acme]))
        expect(yield* list({ q: "acme" })).toEqual(ids([gamma, acme]))
        expect(yield* list({ q: "ACME.CZ" })).toEqual(ids([gamma, acme]))
        expect(yield* list({ q: "beta.io" })).toEqual([beta.id])
        expect(yield* list({ q: "zeta" })).toEqual([beta.id])
        expect(yield* list({ q: "gamma" })).toEqual([gamma.id])
        expect(yield* list({ q: "%" })).toEqual([gamma.id])
        expect(yield* list({ q: "_" })).toEqual([beta.id])
        expect(yield* list({ q: "a_w" })).toEqual([beta.id])
        expect(yield* list({ q: "*" })).toEqual([delta.id])
        expect(yield* list({ q: "\\" })).toEqual([delta.id])
        expect(yield* list({ updatedSince: at(200) })).toEqual(ids([delta, gamma, beta]))
        expect(yield* list({ updatedSince: at(201) })).toEqual(ids([delta, gamma]))
        expect(yield* list({ updatedSince: at(250), q: "acme" })).toEqual([gamma.id])
      })
    )

    test(
      "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Companies.CompanyRepository
        const companies = [5, 5, 5, 1, 9, 5].map((t, i) => firm({ name: `C${i}`, created_at: at(t) }))
        for (const company of companies) yield* repo.insert(a.id, company)
        const expected = ids(newestFirst(companies))
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
        expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
        expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
        expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
        expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
      })
    )
  })
}
