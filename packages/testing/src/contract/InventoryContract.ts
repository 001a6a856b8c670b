/**
 * The storage contract of the inventory ports (`ProductRepository`, `StockLedgerStore`): every
 * adapter must pass it unchanged. `makeLayer` gives an isolated, empty store per test.
 */
import {
  Access,
  Errors,
  Inventory,
  type Kernel,
  Orders,
  type Organisation,
  PurchaseOrders,
  Returns,
  Transaction
} from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { amount, at, Boom, newId, organisationId, page, uuid } from "./Fixtures.js"

type Product = Inventory.Product
type StockMovement = Inventory.StockMovement

const goods = (overrides: Partial<Product> = {}): Product => ({
  id: newId(Inventory.ProductId),
  sku: `SKU-${uuid()}`,
  name: "Mug",
  unit: "pcs",
  unit_price: amount(12.5),
  currency: "EUR",
  vat_rate: 21,
  active: true,
  kind: "physical",
  category: null,
  low_stock_threshold: null,
  stock: null,
  options: [],
  variants: [],
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const sized = (overrides: Partial<Product> = {}): Product =>
  goods({
    options: [{ name: "size", values: ["S", "M"] }],
    variants: [
      { id: newId(Inventory.VariantId), sku: "S", options: { size: "S" }, unit_price: null, stock: null },
      { id: newId(Inventory.VariantId), sku: null, options: { size: "M" }, unit_price: amount(13.25), stock: null }
    ],
    ...overrides
  })

/** The movement `apply` would give for `move` from `level`; the contract feeds ports exactly such entries. */
const movement = (
  product: Product,
  variantId: Inventory.VariantId | null,
  level: Inventory.StockLedger.Level,
  move: Inventory.StockLedger.Move,
  overrides: Partial<StockMovement> = {}
): StockMovement => {
  const entry = Either.getOrThrow(
    Inventory.StockLedger.apply({ product_id: product.id, variant_id: variantId }, level, move)
  )
  return {
    id: newId(Inventory.StockMovementId),
    product_id: product.id,
    variant_id: variantId,
    ...entry,
    key_id: null,
    order_id: null,
    purchase_order_id: null,
    return_id: null,
    note: null,
    created_at: at(1),
    ...overrides
  }
}

const ports = Effect.all({
  products: Inventory.ProductRepository,
  ledger: Inventory.StockLedgerStore,
  tx: Transaction.Transaction
})

const current = (organisationId: Organisation.OrganisationId, id: Inventory.ProductId) =>
  Effect.flatMap(Inventory.ProductRepository, (products) => products.get(organisationId, id)).pipe(
    Effect.map(Option.getOrThrow)
  )

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<Kernel.StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`inventory storage contract: ${name}`, () => {
    describe("ProductRepository", () => {
      test(
        "stores a product with its options and variants; stock starts untracked whatever was given",
        Effect.gen(function* () {
          const { products } = yield* ports
          const org = organisationId()
          const shirt = sized({ category: "wear", low_stock_threshold: 2, unit_price: amount(0.1) })
          yield* products.insert(org, { ...shirt, stock: 5, variants: shirt.variants.map((v) => ({ ...v, stock: 3 })) })
          expect(Option.getOrThrow(yield* products.get(org, shirt.id))).toEqual(shirt)
          expect(Option.getOrThrow(yield* products.getForUpdate(org, shirt.id))).toEqual(shirt)
          expect(yield* products.get(organisationId(), shirt.id)).toEqual(Option.none())
          expect(yield* products.get(org, newId(Inventory.ProductId))).toEqual(Option.none())
        })
      )

      test(
        "refuses a SKU the organisation already uses, on insert and update, naming sku; other organisations may",
        Effect.gen(function* () {
          const { products } = yield* ports
          const [a, b] = [organisationId(), organisationId()]
          const first = goods({ sku: "MUG" })
          const second = goods({ sku: "CUP" })
          yield* products.insert(a, first)
          yield* products.insert(a, second)
          const taken = yield* Effect.flip(products.insert(a, goods({ sku: "MUG" })))
          expect(taken).toBeInstanceOf(Errors.ValidationFailed)
          expect((taken as Errors.ValidationFailed).detail.map((issue) => issue.path)).toEqual(["sku"])
          const takenOnUpdate = yield* Effect.flip(products.update(a, { ...second, sku: "MUG" }))
          expect((takenOnUpdate as Errors.ValidationFailed).detail.map((issue) => issue.path)).toEqual(["sku"])
          expect(Option.getOrThrow(yield* products.get(a, second.id)).sku).toBe("CUP")
          yield* products.insert(b, goods({ sku: "MUG" }))
          // Renaming frees the old SKU.
          yield* products.update(a, { ...first, sku: "MUG-2" })
          yield* products.insert(a, goods({ sku: "MUG" }))
        })
      )

      test(
        "a refused SKU inside a unit of work leaves the unit usable",
        Effect.gen(function* () {
          const { products, tx } = yield* ports
          const org = organisationId()
          yield* products.insert(org, goods({ sku: "MUG" }))
          const kept = goods({ sku: "KEPT" })
          yield* tx.run(
            Effect.gen(function* () {
              yield* Effect.flip(products.insert(org, goods({ sku: "MUG" })))
              yield* products.insert(org, kept)
            })
          )
          expect(Option.isSome(yield* products.get(org, kept.id))).toBe(true)
        })
      )

      test(
        "update writes everything but stock: kept items keep their level, new ones start untracked, gone ones are dropped",
        Effect.gen(function* () {
          const { products, ledger } = yield* ports
          const org = organisationId()
          const shirt = sized()
          const [small, medium] = shirt.variants
          yield* products.insert(org, shirt)
          yield* ledger.append(org, movement(shirt, small!.id, null, { kind: "count", count: 4 }))
          yield* ledger.append(org, movement(shirt, medium!.id, null, { kind: "count", count: 0 }))
          const large = {
            id: newId(Inventory.VariantId),
            sku: "L",
            options: { size: "L" },
            unit_price: null,
            stock: 99
          }
          const changed: Product = {
            ...shirt,
            name: "Shirt",
            unit_price: amount(15),
            options: [{ name: "size", values: ["S", "L"] }],
            variants: [{ ...small!, stock: 42 }, large],
            stock: 1000,
            updated_at: at(5)
          }
          yield* products.update(org, changed)
          const read = Option.getOrThrow(yield* products.get(org, shirt.id))
          expect(read).toEqual({
            ...changed,
            variants: [
              { ...small!, stock: 4 },
              { ...large, stock: null }
            ],
            stock: 4
          })
          // The medium variant's level is gone with it: bringing it back starts untracked.
          yield* products.update(org, { ...changed, variants: [{ ...small!, stock: null }, medium!] })
          expect(Option.getOrThrow(yield* products.get(org, shirt.id)).variants.map((v) => v.stock)).toEqual([4, null])
          // An unknown product is left alone.
          yield* products.update(org, goods())
        })
      )

      test(
        "a product switching to variants and back: its own item goes and comes back untracked",
        Effect.gen(function* () {
          const { products, ledger } = yield* ports
          const org = organisationId()
          const plain = goods()
          yield* products.insert(org, plain)
          yield* ledger.append(org, movement(plain, null, null, { kind: "count", count: 0 }))
          expect((yield* current(org, plain.id)).stock).toBe(0)
          const withVariants = sized({ id: plain.id, sku: plain.sku })
          yield* products.update(org, withVariants)
          expect((yield* current(org, plain.id)).stock).toBeNull()
          yield* products.update(org, plain)
          expect((yield* current(org, plain.id)).stock).toBeNull()
        })
      )

      test(
        "lists newest first with paging, filtered by active, category, kind and stock band",
        Effect.gen(function* () {
          const { products, ledger } = yield* ports
          const org = organisationId()
          const made: Array<Product> = []
          const make = (overrides: Partial<Product>, count?: number) =>
            Effect.gen(function* () {
              const product = goods({ created_at: at(made.length), ...overrides })
              yield* products.insert(org, product)
              if (count !== undefined)
                yield* ledger.append(org, movement(product, null, null, { kind: "count", count }))
              made.push(product)
              return product.id
            })
          const untracked = yield* make({ category: "a" })
          const out = yield* make({ category: "a", kind: "digital" }, 0)
          const low = yield* make({ active: false }, 3)
          const ok = yield* make({}, 4)
          const lowOwn = yield* make({ low_stock_threshold: 9 }, 9)
          const shirt = sized({ created_at: at(10) })
          yield* products.insert(org, shirt)
          yield* ledger.append(org, movement(shirt, shirt.variants[0]!.id, null, { kind: "count", count: 2 }))
          yield* ledger.append(org, movement(shirt, shirt.variants[1]!.id, null, { kind: "count", count: 2 }))
          yield* products.insert(organisationId(), goods())

          const ids = (filter: Inventory.ProductFilter, p = page(50)) =>
            Effect.map(products.list(org, filter, p), (rows) => rows.map((row) => row.id))
          const band = (b: Inventory.StockBand) => ({ stock: { band: b, defaultThreshold: 3 } })
          expect(yield* ids({})).toEqual([shirt.id, lowOwn, ok, low, out, untracked])
          expect(yield* ids({}, page(2, 1))).toEqual([lowOwn, ok, low])
          expect(yield* ids({ active: false })).toEqual([low])
          expect(yield* ids({ category: "a" })).toEqual([out, untracked])
          expect(yield* ids({ kind: "digital" })).toEqual([out])
          expect(yield* ids(band("untracked"))).toEqual([untracked])
          expect(yield* ids(band("out"))).toEqual([out])
          expect(yield* ids(band("low"))).toEqual([lowOwn, low])
          expect(yield* ids(band("ok"))).toEqual([shirt.id, ok])
          expect(yield* ids({ stock: { band: "low", defaultThreshold: 4 } })).toEqual([shirt.id, lowOwn, ok, low])
          const listed = yield* products.list(org, {}, page(1))
          expect(listed[0]).toEqual({ ...shirt, stock: 4, variants: shirt.variants.map((v) => ({ ...v, stock: 2 })) })
        })
      )
    })

    describe("StockLedgerStore", () => {
      test(
        "appends movements with the documents they belong to and keeps each item's level equal to Σ quantity; lists them newest first",
        Effect.gen(function* () {
          const { products, ledger } = yield* ports
          const org = organisationId()
          const shirt = sized()
          const [small, medium] = shirt.variants
          yield* products.insert(org, shirt)
          const moves = [
            movement(
              shirt,
              small!.id,
              null,
              { kind: "count", count: 5 },
              { note: "stocktake", key_id: newId(Access.KeyId) }
            ),
            movement(
              shirt,
              small!.id,
              5,
              { kind: "sale", delta: -2 },
              { order_id: newId(Orders.OrderId), created_at: at(2) }
            ),
            movement(shirt, medium!.id, null, { kind: "count", count: 1 }, { created_at: at(2) }),
            movement(
              shirt,
              small!.id,
              3,
              { kind: "receipt", delta: 4 },
              { purchase_order_id: newId(PurchaseOrders.PurchaseOrderId), created_at: at(3) }
            ),
            movement(
              shirt,
              small!.id,
              7,
              { kind: "return", delta: 1 },
              { order_id: newId(Orders.OrderId), return_id: newId(Returns.ReturnId), created_at: at(3) }
            ),
            movement(shirt, small!.id, 8, { kind: "count", count: null }, { created_at: at(4) })
          ]
          for (const m of moves) yield* ledger.append(org, m)
          const product = yield* current(org, shirt.id)
          expect(product.variants.map((v) => v.stock)).toEqual([null, 1])
          expect(product.stock).toBe(1)
          expect(yield* ledger.list(org, shirt.id, {}, page(50))).toEqual([...moves].reverse())
          expect(yield* ledger.list(org, shirt.id, { variantId: small!.id }, page(2))).toEqual([
            moves[5],
            moves[4],
            moves[3]
          ])
          expect(yield* ledger.list(org, shirt.id, {}, page(1, 1))).toEqual([moves[4], moves[3]])
          expect(yield* ledger.list(organisationId(), shirt.id, {}, page(50))).toEqual([])
          const smallRows = yield* ledger.list(org, shirt.id, { variantId: small!.id }, page(50))
          expect(Inventory.StockLedger.sum(smallRows)).toBe(0)
        })
      )

      test(
        "refuses a movement computed from a level the item does not hold, or for an item the product lacks; nothing is written",
        Effect.gen(function* () {
          const { products, ledger } = yield* ports
          const org = organisationId()
          const plain = goods()
          yield* products.insert(org, plain)
          yield* ledger.append(org, movement(plain, null, null, { kind: "count", count: 5 }))
          for (const stale of [
            movement(plain, null, 4, { kind: "adjust", delta: -1 }),
            movement(plain, newId(Inventory.VariantId), 5, { kind: "adjust", delta: -1 }),
            movement(goods(), null, null, { kind: "count", count: 1 })
          ]) {
            expect(yield* Effect.flip(ledger.append(org, stale))).toBeInstanceOf(Errors.StorageError)
          }
          expect((yield* current(org, plain.id)).stock).toBe(5)
          expect(yield* ledger.list(org, plain.id, {}, page(50))).toHaveLength(1)
        })
      )

      test(
        "a unit of work that appends and then fails leaves no ledger row and the level as it was",
        Effect.gen(function* () {
          const { products, ledger, tx } = yield* ports
          const org = organisationId()
          const plain = goods()
          yield* products.insert(org, plain)
          yield* ledger.append(org, movement(plain, null, null, { kind: "count", count: 5 }))
          const error = yield* Effect.flip(
            tx.run(
              Effect.gen(function* () {
                yield* ledger.append(org, movement(plain, null, 5, { kind: "sale", delta: -5 }))
                expect((yield* current(org, plain.id)).stock).toBe(0)
                return yield* new Boom({ step: "after appending" })
              })
            )
          )
          expect(error).toEqual(new Boom({ step: "after appending" }))
          expect((yield* current(org, plain.id)).stock).toBe(5)
          expect(yield* ledger.list(org, plain.id, {}, page(50))).toHaveLength(1)
        })
      )

      concurrent(
        "a unit of work holding the product (getForUpdate) makes another unit's getForUpdate wait for its commit",
        Effect.gen(function* () {
          const { products, ledger, tx } = yield* ports
          const org = organisationId()
          const plain = goods()
          yield* products.insert(org, plain)
          yield* ledger.append(org, movement(plain, null, null, { kind: "count", count: 5 }))
          const locked = yield* Deferred.make<void>()
          const gate = yield* Deferred.make<void>()
          const first = yield* Effect.fork(
            tx.run(
              Effect.gen(function* () {
                const held = Option.getOrThrow(yield* products.getForUpdate(org, plain.id))
                yield* Deferred.succeed(locked, undefined)
                yield* Deferred.await(gate)
                yield* ledger.append(org, movement(plain, null, held.stock, { kind: "sale", delta: -2 }))
              })
            )
          )
          yield* Deferred.await(locked)
          const second = yield* Effect.fork(tx.run(products.getForUpdate(org, plain.id)))
          // Long enough for an adapter that does not lock to have answered.
          yield* Effect.sleep("100 millis")
          expect(Option.isNone(yield* Fiber.poll(second))).toBe(true)
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.join(first)
          expect(Option.getOrThrow(yield* Fiber.join(second)).stock).toBe(3)
        })
      )

      concurrent(
        "25 concurrent units taking one each from a stock of 10: exactly 10 commit, the level ends at 0 = Σ ledger",
        Effect.gen(function* () {
          const { products, ledger, tx } = yield* ports
          const org = organisationId()
          const plain = goods()
          yield* products.insert(org, plain)
          yield* ledger.append(org, movement(plain, null, null, { kind: "count", count: 10 }))
          const results = yield* Effect.forEach(
            Array.from({ length: 25 }, (_, i) => i),
            (i) =>
              Effect.either(
                tx.run(
                  Effect.gen(function* () {
                    const held = Option.getOrThrow(yield* products.getForUpdate(org, plain.id))
                    const entry = yield* Inventory.StockLedger.apply(
                      { product_id: plain.id, variant_id: null },
                      held.stock,
                      { kind: "sale", delta: -1 }
                    )
                    yield* Effect.sleep(`${i % 3} millis`)
                    yield* ledger.append(org, movement(plain, null, held.stock, { kind: "sale", delta: -1 }))
                    return entry.level
                  })
                )
              ),
            { concurrency: "unbounded" }
          )
          const committed = results.filter(Either.isRight)
          expect(committed).toHaveLength(10)
          for (const refused of results.filter(Either.isLeft)) expect(refused.left.code).toBe("insufficient_stock")
          expect((yield* current(org, plain.id)).stock).toBe(0)
          const rows = yield* ledger.list(org, plain.id, {}, page(100))
          expect(rows).toHaveLength(11)
          expect(Inventory.StockLedger.sum(rows)).toBe(0)
        }),
        120_000
      )
    })
  })
}
