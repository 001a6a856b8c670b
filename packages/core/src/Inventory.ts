/** Inventory: products with variants, and their stock as an append-only ledger. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { type Upserted, upsertAll, upsertBy, writeChange } from "./Batch.js"
import { Cursors } from "./Cursors.js"
import {
  type BatchFailed,
  invalidField,
  type NotFound,
  type StorageError,
  ValidationFailed,
  type VariantRequired
} from "./Errors.js"
import { payloadOf } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import {
  type DocumentContext,
  type DocumentLine,
  type DocumentMovement,
  givesBack,
  itemOf,
  levelOf,
  moveOf,
  type StockError
} from "./Inventory/DocumentStock.js"
import { ProductId, StockMovementId, VariantId } from "./Inventory/ProductIds.js"
import { ProductRepository } from "./Inventory/ProductRepository.js"
import * as ProductRules from "./Inventory/ProductRules.js"
import {
  Product,
  ProductCreate,
  type ProductListQuery,
  type ProductPatch,
  ProductUpsert,
  type StockMove,
  type StockMovement,
  type StockMovementQuery
} from "./Inventory/ProductSchemas.js"
import * as StockLedger from "./Inventory/StockLedger.js"
import { StockLedgerStore } from "./Inventory/StockLedgerStore.js"
import { operation } from "./internal/operation.js"
import { merge, nowIso, orNotFound } from "./internal/records.js"
import { ZERO } from "./Money/Amount.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import { parse } from "./Validation.js"
import { encoder, type PageResult, toPage } from "./Wire.js"

export { type DocumentContext, type DocumentLine, type DocumentMovement, goodsIn } from "./Inventory/DocumentStock.js"
export * from "./Inventory/ProductRepository.js"
export * as ProductRules from "./Inventory/ProductRules.js"
export * from "./Inventory/ProductSchemas.js"
export * as StockLedger from "./Inventory/StockLedger.js"
export * from "./Inventory/StockLedgerStore.js"
export * from "./Inventory/StockSettings.js"

export class Inventory extends Context.Tag("@crm/core/Inventory")<
  Inventory,
  {
    readonly create: (
      organisation: Organisation,
      input: z.output<typeof ProductCreate>,
      actor: Actor
    ) => Effect.Effect<Product, ValidationFailed | StorageError>
    readonly get: (organisation: Organisation, id: ProductId) => Effect.Effect<Product, NotFound | StorageError>
    readonly update: (
      organisation: Organisation,
      id: ProductId,
      patch: z.output<typeof ProductPatch>,
      actor: Actor
    ) => Effect.Effect<Product, NotFound | ValidationFailed | StorageError>
    /**
     * Changes only the fields sent of the product with `input.sku`, or creates it (then `name` is
     * required); a change that alters nothing writes nothing and emits nothing. Concurrent upserts
     * of one SKU create one product.
     */
    readonly upsert: (
      organisation: Organisation,
      input: z.output<typeof ProductUpsert>,
      actor: Actor
    ) => Effect.Effect<Upserted<Product>, NotFound | ValidationFailed | StorageError>
    /**
     * Upserts of several keys in one unit of work, in order: every one or none (the first refused
     * item is `batch_failed` naming it). Every item's key lock is taken first, in sorted order.
     */
    readonly upsertMany: (
      organisation: Organisation,
      items: ReadonlyArray<z.output<typeof ProductUpsert>>,
      actor: Actor
    ) => Effect.Effect<ReadonlyArray<Upserted<Product>>, BatchFailed | StorageError>
    /** The lock an upsert of `input` takes (the import takes them all before its first line). */
    readonly upsertKey: (input: z.output<typeof ProductUpsert>) => string
    readonly list: (
      organisation: Organisation,
      query: ProductListQuery
    ) => Effect.Effect<PageResult<Product>, ValidationFailed | StorageError>
    /** `POST /products/{id}/stock`: one ledger entry; answers the product with its new stock. Emits nothing. */
    readonly move: (
      organisation: Organisation,
      id: ProductId,
      request: StockMove,
      actor: Actor
    ) => Effect.Effect<Product, NotFound | StockError | StorageError>
    readonly movements: (
      organisation: Organisation,
      id: ProductId,
      query: StockMovementQuery
    ) => Effect.Effect<PageResult<StockMovement>, NotFound | ValidationFailed | StorageError>
    /**
     * Moves tracked stock for a document's lines, inside the caller's unit of work; all or nothing.
     * Lines without a product and untracked items are passed over. Giving goods back (cancel,
     * return) also passes over an item that no longer exists (a variant removed since the sale);
     * a sale or a receipt refuses it. A refusal names the line by its place (`items.<n>.`). Answers,
     * line by line, whether the line moved stock: what a document keeps to give back no more later.
     */
    readonly moveForDocument: (
      organisation: Organisation,
      lines: ReadonlyArray<DocumentLine>,
      kind: DocumentMovement,
      context: DocumentContext
    ) => Effect.Effect<ReadonlyArray<boolean>, StockError | StorageError>
    /**
     * Checks that each line names a product of the organisation and, by the sale's rules, one of
     * its variants (refusals name `items.<n>.`): what a document checks before it moves stock later.
     */
    readonly checkLines: (
      organisation: Organisation,
      lines: ReadonlyArray<{ readonly product_id: ProductId | null; readonly variant_id: VariantId | null }>
    ) => Effect.Effect<void, VariantRequired | ValidationFailed | StorageError>
  }
>() {}

const CREATED_FIELDS = ["id", "sku", "name", "unit", "unit_price", "currency", "vat_rate", "active"] as const
const UPDATED_FIELDS = ["id", "sku", "name", "unit_price", "active"] as const
const createdPayload = payloadOf(Product, CREATED_FIELDS)
const updatedPayload = payloadOf(Product, UPDATED_FIELDS)

const upsertKey = (input: { readonly sku: string }) => `product.sku:${input.sku}`
// An upsert that creates is checked as a create is, which reads the request as written (its price a number).
const asWritten = encoder(ProductUpsert)!

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const newVariantId = () => brand(VariantId, ids.next())
  const repo = yield* ProductRepository
  const cursors = yield* Cursors
  const ledger = yield* StockLedgerStore
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: ProductId) =>
    repo.get(organisationId, id).pipe(orNotFound("product"))
  const lock = (organisationId: OrganisationId, id: ProductId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("product"))

  /**
   * Applies one move to the locked product's item and records it, answering the entry; the
   * caller's unit of work holds the product.
   */
  const record = (
    organisationId: OrganisationId,
    product: Product,
    item: StockLedger.Item,
    move: StockLedger.Move,
    entry: Omit<DocumentContext, "at"> & { readonly note: string | null },
    at: string
  ) =>
    Effect.gen(function* () {
      const applied = yield* StockLedger.apply(item, levelOf(product, item), move)
      yield* ledger.append(organisationId, {
        id: brand(StockMovementId, ids.next()),
        product_id: item.product_id,
        variant_id: item.variant_id,
        kind: applied.kind,
        quantity: applied.quantity,
        level: applied.level,
        key_id: entry.keyId,
        order_id: entry.orderId ?? null,
        purchase_order_id: entry.purchaseOrderId ?? null,
        return_id: entry.returnId ?? null,
        note: entry.note,
        created_at: at
      })
      return applied
    })

  // Inside the caller's unit of work.
  const insert = Effect.fnUntraced(function* (organisation: Organisation, input: z.output<typeof ProductCreate>) {
    const now = yield* nowIso
    const draft: Product = {
      id: brand(ProductId, ids.next()),
      sku: input.sku,
      name: input.name,
      unit: input.unit ?? "pcs",
      unit_price: input.unit_price ?? ZERO,
      currency: input.currency ?? organisation.settings.default_currency,
      vat_rate: input.vat_rate ?? 0,
      active: input.active ?? true,
      kind: input.kind ?? "physical",
      category: input.category ?? null,
      low_stock_threshold: input.low_stock_threshold ?? null,
      stock: null,
      options: input.options ?? [],
      variants: [],
      created_at: now,
      updated_at: now
    }
    const variants = yield* ProductRules.variantsFrom([], input.variants ?? [], newVariantId)
    const product = yield* ProductRules.check({ ...draft, variants: [...variants] })
    yield* repo.insert(organisation.id, product)
    yield* events.append(organisation.id, [{ event: "product.created", data: createdPayload(product) }], now)
    return product
  })

  // Inside the caller's unit of work, on the locked product; `None` when `onlyIfChanged` and the
  // patch alters nothing (variants sent without ids are new variants, so always a change).
  const change = Effect.fnUntraced(function* (
    organisation: Organisation,
    current: Product,
    patch: z.output<typeof ProductPatch>,
    onlyIfChanged: boolean
  ) {
    const now = yield* nowIso
    const { variants: variantInputs, ...fields } = patch
    const variants =
      variantInputs === undefined
        ? current.variants
        : yield* ProductRules.variantsFrom(current.variants, variantInputs, newVariantId)
    const next = ProductRules.carryStock(current, {
      ...merge(current, fields),
      variants: [...variants],
      updated_at: now
    })
    const product = yield* ProductRules.check(next)
    return yield* writeChange(
      current,
      product,
      onlyIfChanged,
      ProductRules.checkNothingDropped(current, product).pipe(
        Effect.zipRight(repo.update(organisation.id, product)),
        Effect.zipRight(
          events.append(organisation.id, [{ event: "product.updated", data: updatedPayload(product) }], now)
        )
      )
    )
  })

  const upsert = operation("Inventory.upsert")((organisation: Organisation, input: z.output<typeof ProductUpsert>) =>
    upsertBy(
      tx,
      organisation.id,
      upsertKey(input),
      repo.findBySku(organisation.id, input.sku),
      Effect.flatMap(parse(ProductCreate, asWritten(input)), (created) => insert(organisation, created)),
      (found) =>
        Effect.flatMap(lock(organisation.id, found.id), (current) => change(organisation, current, input, true))
    )
  )

  return Inventory.of({
    create: operation("Inventory.create")(insert, (effect) => tx.run(effect)),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Inventory.update")(
      function* (organisation, id, patch) {
        const current = yield* lock(organisation.id, id)
        return Option.getOrThrow(yield* change(organisation, current, patch, false))
      },
      (effect) => tx.run(effect)
    ),
    upsertKey,
    upsert,
    upsertMany: operation("Inventory.upsertMany")((organisation, items) =>
      upsertAll(tx, organisation.id, items, upsertKey, (item) => upsert(organisation, item))
    ),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "products" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.active !== undefined ? { active: query.active } : {}),
            ...(query.category !== undefined ? { category: query.category } : {}),
            ...(query.kind !== undefined ? { kind: query.kind } : {}),
            ...(query.stock !== undefined
              ? {
                  stock: {
                    band: query.stock,
                    defaultThreshold: organisation.settings.stock.low_stock_threshold
                  }
                }
              : {})
          },
          page
        )
      ),
    move: operation("Inventory.move")(function* (organisation, id, request, actor) {
      return yield* tx.run(
        Effect.gen(function* () {
          const product = yield* lock(organisation.id, id)
          const item = yield* itemOf(product, request.variant_id)
          const now = yield* nowIso
          yield* record(
            organisation.id,
            product,
            item,
            moveOf(request),
            { keyId: actor.keyId, note: request.note ?? null },
            now
          )
          return yield* find(organisation.id, id)
        })
      )
    }),
    movements: (organisation, id, query) =>
      Effect.gen(function* () {
        const product = yield* find(organisation.id, id)
        if (query.variant_id !== undefined && !product.variants.some((variant) => variant.id === query.variant_id)) {
          return yield* invalidField("variant_id", "not a variant of this product", "unknown_reference")
        }
        const rows = yield* ledger.list(
          organisation.id,
          product.id,
          query.variant_id !== undefined ? { variantId: query.variant_id } : {},
          query
        )
        return toPage(rows, query)
      }),
    moveForDocument: operation("Inventory.moveForDocument")(function* (organisation, lines, kind, context) {
      const ids = [...new Set(lines.flatMap((line) => (line.product_id === null ? [] : [line.product_id])))].sort()
      const moved = lines.map(() => false)
      if (ids.length === 0) return moved
      yield* tx.run(
        Effect.gen(function* () {
          // Products are locked in id order, so two documents touching the same products cannot deadlock.
          const locked = new Map<string, Product>()
          for (const id of ids) {
            const found = yield* repo.getForUpdate(organisation.id, id)
            if (Option.isSome(found)) locked.set(id, found.value)
          }
          for (const [i, move] of lines.entries()) {
            if (move.product_id === null) continue
            const at = `items.${i}.`
            const product = locked.get(move.product_id)
            // Goods given back go to the items they were sold from; one that is gone since (a variant
            // removed once it held nothing) has nowhere to take them, and must not keep the order
            // from being cancelled or the return from being received.
            const gone = givesBack(kind) && (product === undefined || Either.isLeft(itemOf(product, move.variant_id)))
            if (gone) continue
            if (product === undefined) {
              return yield* invalidField(`${at}product_id`, "no such product in this organisation", "unknown_reference")
            }
            if (!(move.quantity > 0)) return yield* invalidField(`${at}quantity`, "must be above 0")
            const item = yield* itemOf(product, move.variant_id, at)
            // Untracked stock has no level to take from or add to.
            if (levelOf(product, item) === null) continue
            if (!Number.isInteger(move.quantity)) {
              return yield* invalidField(`${at}quantity`, "stock is counted in whole units")
            }
            const applied = yield* record(
              organisation.id,
              product,
              item,
              { kind, delta: kind === "sale" ? -move.quantity : move.quantity },
              { ...context, note: null },
              context.at
            ).pipe(
              // The ledger speaks of the stock endpoint's `delta`; here the line's quantity moved.
              Effect.mapError((error) =>
                error instanceof ValidationFailed
                  ? new ValidationFailed({ detail: error.detail.map((issue) => ({ ...issue, path: `${at}quantity` })) })
                  : error
              )
            )
            // A later line of the same document may name this item again: it starts where this one left it.
            locked.set(product.id, ProductRules.withLevel(product, StockLedger.itemKey(item), applied.level))
            moved[i] = true
          }
        })
      )
      return moved
    }),
    checkLines: (organisation, lines) =>
      Effect.forEach(
        lines,
        (line, i) =>
          line.product_id === null
            ? Effect.void
            : Effect.flatMap(repo.get(organisation.id, line.product_id), (found) =>
                Option.isNone(found)
                  ? Effect.fail(
                      invalidField(`items.${i}.product_id`, "no such product in this organisation", "unknown_reference")
                    )
                  : Effect.asVoid(itemOf(found.value, line.variant_id, `items.${i}.`))
              ),
        { discard: true }
      )
  })
})

export const layer = Layer.effect(Inventory, make)
