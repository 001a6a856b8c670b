/**
 * `Inventory.moveForDocument`, the kernel operation orders, purchase orders and returns move stock
 * through, on every store: sale and cancel, receipt and return, untracked items skipped,
 * references checked per line, all or nothing, and joining the caller's unit of work.
 */
import {
  Access,
  Events,
  Ids,
  Inventory,
  Kernel,
  Money,
  Orders,
  PurchaseOrders,
  Returns,
  Settings,
  Transaction
} from "@crm/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Built, build } from "../support/ports.js"
import { storages } from "../support/storages.js"

type Services = Access.Access | Inventory.Inventory | Events.Events | Transaction.Transaction

class Boom extends Data.TaggedError("Boom")<{ readonly step: string }> {}

const actor = { keyId: null }
const ORDER = { orderId: Ids.brand(Orders.OrderId, crypto.randomUUID()), keyId: null, at: "2026-03-10T11:00:00.000Z" }

const setup = Effect.gen(function* () {
  const organisation = yield* Effect.flatMap(Access.Access, (access) =>
    access.createOrganisation(Settings.OrganisationCreate.parse({ name: "shop" }))
  )
  const inventory = yield* Inventory.Inventory
  const mug = yield* inventory.create(organisation, { sku: "MUG", name: "Mug", unit_price: Money.ofNumber(10) }, actor)
  const shirt = yield* inventory.create(
    organisation,
    {
      sku: "SHIRT",
      name: "Shirt",
      options: [{ name: "size", values: ["S", "M"] }],
      variants: [{ options: { size: "S" } }, { options: { size: "M" } }]
    },
    actor
  )
  const ebook = yield* inventory.create(organisation, { sku: "EBOOK", name: "E-book", kind: "digital" }, actor)
  yield* inventory.move(organisation, mug.id, { count: 5 }, actor)
  yield* inventory.move(organisation, shirt.id, { count: 2, variant_id: shirt.variants[0]!.id }, actor)
  const small = shirt.variants[0]!.id
  const medium = shirt.variants[1]!.id
  return { organisation, inventory, mug, shirt, ebook, small, medium }
})

const levels = (
  inventory: Inventory.Inventory["Type"],
  organisation: Settings.Organisation,
  ids: ReadonlyArray<Inventory.ProductId>
) =>
  Effect.forEach(ids, (id) =>
    Effect.map(inventory.get(organisation, id), (product) => [
      product.stock,
      ...product.variants.map((variant) => variant.stock)
    ])
  )

for (const storage of storages) {
  describe(`inventory for orders [${storage.name}]`, () => {
    let kernel: Built<Services> | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) => Kernel.layer.pipe(Layer.provideMerge(ports)))
    })
    afterAll(async () => kernel?.close())

    it("sells and cancels: takes and returns stock, skips untracked items, records the order on each entry", async () => {
      await kernel!.run(
        Effect.gen(function* () {
          const { organisation, inventory, mug, shirt, ebook, small, medium } = yield* setup
          const took = yield* inventory.moveForDocument(
            organisation,
            [
              { product_id: mug.id, variant_id: null, quantity: 2 },
              { product_id: shirt.id, variant_id: small, quantity: 1 },
              { product_id: shirt.id, variant_id: medium, quantity: 7 },
              { product_id: ebook.id, variant_id: null, quantity: 1.5 },
              { product_id: mug.id, variant_id: null, quantity: 3 }
            ],
            "sale",
            ORDER
          )
          // The answer says which lines took stock: the order keeps it, to give back only those.
          expect(took).toEqual([true, true, false, false, true])
          expect(yield* levels(inventory, organisation, [mug.id, shirt.id, ebook.id])).toEqual([
            [0],
            [1, 1, null],
            [null]
          ])
          const sold = yield* inventory.movements(organisation, mug.id, { limit: 50, offset: 0 })
          expect(sold.data.map((row) => [row.kind, row.quantity, row.level, row.order_id, row.created_at])).toEqual([
            ["sale", -3, 0, ORDER.orderId, ORDER.at],
            ["sale", -2, 3, ORDER.orderId, ORDER.at],
            ["count", 5, 5, null, sold.data[2]!.created_at]
          ])
          yield* inventory.moveForDocument(
            organisation,
            [
              { product_id: mug.id, variant_id: null, quantity: 5 },
              { product_id: shirt.id, variant_id: small, quantity: 1 }
            ],
            "cancel",
            ORDER
          )
          expect(yield* levels(inventory, organisation, [mug.id, shirt.id])).toEqual([[5], [2, 2, null]])
          // Stock moves emit nothing.
          const log = yield* (yield* Events.Events).poll(organisation.id, { since: "0", limit: 100 })
          expect(log.data.map((event) => event.event)).toEqual([
            "product.created",
            "product.created",
            "product.created"
          ])
        })
      )
    })

    it("receives and takes back goods: adds to tracked stock, records the document, passes over what cannot take them", async () => {
      await kernel!.run(
        Effect.gen(function* () {
          const { organisation, inventory, mug, shirt, ebook, small, medium } = yield* setup
          const purchaseOrderId = Ids.brand(PurchaseOrders.PurchaseOrderId, crypto.randomUUID())
          const brought = yield* inventory.moveForDocument(
            organisation,
            [
              { product_id: mug.id, variant_id: null, quantity: 3 },
              { product_id: null, variant_id: null, quantity: 4 },
              { product_id: shirt.id, variant_id: medium, quantity: 2 },
              { product_id: shirt.id, variant_id: small, quantity: 1 },
              { product_id: ebook.id, variant_id: null, quantity: 1 }
            ],
            "receipt",
            { purchaseOrderId, keyId: null, at: ORDER.at }
          )
          expect(brought).toEqual([true, false, false, true, false])
          expect(yield* levels(inventory, organisation, [mug.id, shirt.id, ebook.id])).toEqual([
            [8],
            [3, 3, null],
            [null]
          ])
          const received = (yield* inventory.movements(organisation, mug.id, { limit: 50, offset: 0 })).data[0]!
          expect(received).toMatchObject({
            kind: "receipt",
            quantity: 3,
            level: 8,
            purchase_order_id: purchaseOrderId,
            order_id: null,
            return_id: null
          })

          const returnId = Ids.brand(Returns.ReturnId, crypto.randomUUID())
          yield* inventory.moveForDocument(
            organisation,
            [
              { product_id: mug.id, variant_id: null, quantity: 1 },
              // Gone since the sale: a variant removed, a product of nobody.
              { product_id: shirt.id, variant_id: Ids.brand(Inventory.VariantId, crypto.randomUUID()), quantity: 1 },
              { product_id: Ids.brand(Inventory.ProductId, crypto.randomUUID()), variant_id: null, quantity: 1 }
            ],
            "return",
            { orderId: ORDER.orderId, returnId, keyId: null, at: ORDER.at }
          )
          expect(yield* levels(inventory, organisation, [mug.id, shirt.id])).toEqual([[9], [3, 3, null]])
          const back = (yield* inventory.movements(organisation, mug.id, { limit: 50, offset: 0 })).data[0]!
          expect(back).toMatchObject({
            kind: "return",
            quantity: 1,
            level: 9,
            order_id: ORDER.orderId,
            return_id: returnId,
            purchase_order_id: null
          })

          // A receipt names items that must exist, as a sale does: refused, and nothing moved.
          const refused = yield* Effect.flip(
            inventory.moveForDocument(
              organisation,
              [
                { product_id: mug.id, variant_id: null, quantity: 1 },
                { product_id: shirt.id, variant_id: Ids.brand(Inventory.VariantId, crypto.randomUUID()), quantity: 1 }
              ],
              "receipt",
              { purchaseOrderId, keyId: null, at: ORDER.at }
            )
          )
          expect(refused).toMatchObject({ code: "validation_failed", detail: [{ path: "items.1.variant_id" }] })
          expect(yield* levels(inventory, organisation, [mug.id, shirt.id])).toEqual([[9], [3, 3, null]])
        })
      )
    })

    it("refuses the whole order when one line is short, and names the line of a bad reference", async () => {
      await kernel!.run(
        Effect.gen(function* () {
          const { organisation, inventory, mug, shirt, small } = yield* setup
          const other = yield* setup
          const order = (moves: ReadonlyArray<Inventory.DocumentLine>) =>
            Effect.flip(inventory.moveForDocument(organisation, moves, "sale", ORDER))

          const short = yield* order([
            { product_id: mug.id, variant_id: null, quantity: 4 },
            { product_id: shirt.id, variant_id: small, quantity: 3 }
          ])
          expect(short).toMatchObject({
            code: "insufficient_stock",
            detail: { product_id: shirt.id, variant_id: small, level: 2, quantity: -3 }
          })
          const twice = yield* order([
            { product_id: mug.id, variant_id: null, quantity: 4 },
            { product_id: mug.id, variant_id: null, quantity: 2 }
          ])
          expect(twice.code).toBe("insufficient_stock")
          expect(yield* levels(inventory, organisation, [mug.id, shirt.id])).toEqual([[5], [2, 2, null]])

          const paths = (error: unknown) =>
            (error as { readonly detail: ReadonlyArray<{ path: string }> }).detail.map((issue) => issue.path)
          const unknown = yield* order([
            { product_id: mug.id, variant_id: null, quantity: 1 },
            { product_id: other.mug.id, variant_id: null, quantity: 1 }
          ])
          expect([unknown.code, paths(unknown)]).toEqual(["validation_failed", ["items.1.product_id"]])
          const stranger = yield* order([{ product_id: shirt.id, variant_id: other.small, quantity: 1 }])
          expect([stranger.code, paths(stranger)]).toEqual(["validation_failed", ["items.0.variant_id"]])
          const plain = yield* order([{ product_id: mug.id, variant_id: small, quantity: 1 }])
          expect([plain.code, paths(plain)]).toEqual(["validation_failed", ["items.0.variant_id"]])
          const zero = yield* order([{ product_id: mug.id, variant_id: null, quantity: 0 }])
          expect([zero.code, paths(zero)]).toEqual(["validation_failed", ["items.0.quantity"]])
          const fraction = yield* order([{ product_id: mug.id, variant_id: null, quantity: 0.5 }])
          expect([fraction.code, paths(fraction)]).toEqual(["validation_failed", ["items.0.quantity"]])
          expect((yield* order([{ product_id: shirt.id, variant_id: null, quantity: 1 }])).code).toBe(
            "variant_required"
          )
          expect(yield* levels(inventory, organisation, [mug.id, shirt.id])).toEqual([[5], [2, 2, null]])
        })
      )
    })

    it("joins the caller's unit of work: the caller failing afterwards takes the sale back", async () => {
      await kernel!.run(
        Effect.gen(function* () {
          const { organisation, inventory, mug } = yield* setup
          const tx = yield* Transaction.Transaction
          const failed = yield* Effect.flip(
            tx.run(
              Effect.gen(function* () {
                yield* inventory.moveForDocument(
                  organisation,
                  [{ product_id: mug.id, variant_id: null, quantity: 2 }],
                  "sale",
                  ORDER
                )
                return yield* new Boom({ step: "after the sale" })
              })
            )
          )
          expect(failed).toEqual(new Boom({ step: "after the sale" }))
          expect((yield* inventory.get(organisation, mug.id)).stock).toBe(5)
          expect((yield* inventory.movements(organisation, mug.id, { limit: 50, offset: 0 })).data).toHaveLength(1)
        })
      )
    })
  })
}
