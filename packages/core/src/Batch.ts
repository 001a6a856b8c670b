/**
 * Batch writes and upserts by natural key: what an integrator importing or syncing a list needs.
 * A batch is up to 100 creates (or upserts) of one resource in one unit of work, applied in the
 * order sent: the first refused item rolls back every item before it, and the refusal names it.
 * An upsert creates the record its key names or changes only the fields sent, under the key's
 * lock, so concurrent upserts of one key create one record.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { z } from "zod"
import { BatchFailed, type DomainError, type StorageError, ValidationFailed } from "./Errors.js"
import type { OrganisationId } from "./Organisation.js"
import { Transaction } from "./Transaction.js"

export const MAX_BATCH_ITEMS = 100

const itemsOf = <S extends z.ZodType>(item: S) =>
  z.array(item).min(1).max(MAX_BATCH_ITEMS).describe(`1 to ${MAX_BATCH_ITEMS} items, applied in the order sent`)

/** The body of `POST /{resource}/batch` for a resource without a natural key: creates only. */
export const createBody = <C extends z.ZodType>(create: C) =>
  z.strictObject({
    mode: z.literal("create").optional().describe("create (the default): each item is a create body"),
    items: itemsOf(create)
  })

/** The body of `POST /{resource}/batch` for a resource with a natural key: creates or upserts. */
export const createOrUpsertBody = <C extends z.ZodType, U extends z.ZodType>(create: C, upsert: U) =>
  z.discriminatedUnion("mode", [
    createBody(create),
    z.strictObject({
      mode: z.literal("upsert").describe("upsert: each item carries its natural key and creates or changes"),
      items: itemsOf(upsert)
    })
  ])

/** What an upsert did: made the record, changed it, or found every field sent already so. */
export const Outcome = z.enum(["created", "updated", "unchanged"])
export type Outcome = z.infer<typeof Outcome>

export interface Upserted<A> {
  readonly record: A
  readonly outcome: Outcome
}

/** The answer to a batch: the records in the order sent, and in upsert mode what each item did. */
export const batchResult = <T extends z.ZodType>(record: T) =>
  z.object({
    data: z.array(record).describe("the records, in the order sent"),
    outcomes: z.array(Outcome).optional().describe("upsert mode only: what each item did, in the order sent")
  })

/** The `detail` of `batch_failed`: the first refused item and the kernel's own error for it. */
export const BatchFailure = z.object({
  index: z.number().int().describe("0-based place of the refused item in `items`"),
  error: z.string().describe("the kernel's error code for it, e.g. validation_failed, email_already_exists"),
  detail: z.unknown().describe("that error's detail")
})

const refusedAt = (index: number, error: DomainError): BatchFailed =>
  new BatchFailed({ detail: { index, error: error.code, detail: error.detail } })

/**
 * Runs `one` on each item in order inside one unit of work: all or nothing. A refusal of an item
 * becomes `batch_failed` naming it; a storage failure stays what it is.
 */
export const inOrder = <I, A, E extends DomainError, R>(
  tx: Transaction["Type"],
  items: ReadonlyArray<I>,
  one: (item: I, index: number) => Effect.Effect<A, E | StorageError, R>
): Effect.Effect<ReadonlyArray<A>, BatchFailed | StorageError, R> =>
  tx.run(
    Effect.forEach(items, (item, index) =>
      Effect.mapError(one(item, index), (error) =>
        error._tag === "StorageError" ? (error as StorageError) : refusedAt(index, error as DomainError)
      )
    )
  )

const ITEM_PATH = /^items\.(\d+)(?:\.(.*))?$/

/**
 * A batch body's validation issues: those under `items.<n>` are that item's refusal, the lowest
 * `n` reported as `batch_failed` with paths inside the item; a body whose other fields are wrong
 * (`mode`, the number of items) stays `validation_failed`.
 */
export const itemRefusal = (error: ValidationFailed): ValidationFailed | BatchFailed => {
  let first: number | undefined
  for (const issue of error.detail) {
    const match = ITEM_PATH.exec(issue.path)
    if (match === null) return error
    const index = Number(match[1])
    if (first === undefined || index < first) first = index
  }
  if (first === undefined) return error
  const prefix = `items.${first}`
  const issues = error.detail
    .filter((issue) => issue.path === prefix || issue.path.startsWith(`${prefix}.`))
    .map((issue) => ({ ...issue, path: issue.path.slice(prefix.length + 1) }))
  return refusedAt(first, new ValidationFailed({ detail: issues }))
}

/** Deep equality of JSON values, blind to key order: what decides that an upsert changes nothing. */
const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  if (keysA.length !== Object.keys(b).length) return false
  return keysA.every(
    (key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])
  )
}

/** Whether `next` differs from `current` anywhere but `updated_at`. */
export const changes = <A extends { readonly updated_at: string }>(current: A, next: A): boolean =>
  !sameJson({ ...current, updated_at: null }, { ...next, updated_at: null })

/**
 * A change's write (`write`, answering the changed record), or, when `onlyIfChanged` and `next`
 * differs from `current` nowhere but `updated_at`, no write at all and `None`: what lets an upsert
 * that sends what is already there write nothing and emit nothing.
 */
export const writeChange = <A extends { readonly updated_at: string }, E, R>(
  current: A,
  next: A,
  onlyIfChanged: boolean,
  write: Effect.Effect<unknown, E, R>
): Effect.Effect<Option.Option<A>, E, R> =>
  onlyIfChanged && !changes(current, next) ? Effect.succeedNone : Effect.as(write, Option.some(next))

/** Takes the key locks of a batch before anything else, sorted, so two batches cannot deadlock. */
export const lockKeys = (
  tx: Transaction["Type"],
  organisationId: OrganisationId,
  keys: ReadonlyArray<string>
): Effect.Effect<void, StorageError> =>
  Effect.forEach([...new Set(keys)].sort(), (key) => tx.lockKey(organisationId, key), { discard: true })

/**
 * Each item's upsert, in order, in one unit of work that first takes every item's key lock (`keyOf`,
 * the lock the single upsert takes) in sorted order: all or nothing, as `inOrder`.
 */
export const upsertAll = <I, A, E extends DomainError, R>(
  tx: Transaction["Type"],
  organisationId: OrganisationId,
  items: ReadonlyArray<I>,
  keyOf: (item: I) => string,
  upsert: (item: I) => Effect.Effect<Upserted<A>, E | StorageError, R>
): Effect.Effect<ReadonlyArray<Upserted<A>>, BatchFailed | StorageError, R> =>
  tx.run(Effect.zipRight(lockKeys(tx, organisationId, items.map(keyOf)), inOrder(tx, items, upsert)))

/**
 * The upsert of one natural key, in its own unit of work (or the enclosing batch's): under the
 * key's lock, `create` when `find` sees no live record, else `change` it, which answers `None`
 * when the fields sent change nothing (then nothing is written and no event emitted).
 */
export const upsertBy = <A, E, R>(
  tx: Transaction["Type"],
  organisationId: OrganisationId,
  lockName: string,
  find: Effect.Effect<Option.Option<A>, E | StorageError, R>,
  create: Effect.Effect<A, E | StorageError, R>,
  change: (current: A) => Effect.Effect<Option.Option<A>, E | StorageError, R>
): Effect.Effect<Upserted<A>, E | StorageError, R> =>
  tx.run(
    Effect.gen(function* () {
      yield* tx.lockKey(organisationId, lockName)
      const current = yield* find
      if (Option.isNone(current)) return { record: yield* create, outcome: "created" as const }
      const changed = yield* change(current.value)
      return Option.match(changed, {
        onNone: () => ({ record: current.value, outcome: "unchanged" as const }),
        onSome: (record) => ({ record, outcome: "updated" as const })
      })
    })
  )

/** Runs the batches of every resource: what the transports call with a resource's own operation. */
export class Batches extends Context.Tag("@crm/core/Batches")<
  Batches,
  {
    /** Each item's create, in order, in one unit of work: every record or none. */
    readonly creates: <I, A, E extends DomainError, R>(
      items: ReadonlyArray<I>,
      create: (item: I) => Effect.Effect<A, E | StorageError, R>
    ) => Effect.Effect<ReadonlyArray<A>, BatchFailed | StorageError, R>
  }
>() {}

export const layer = Layer.effect(
  Batches,
  Effect.map(Transaction, (tx) =>
    Batches.of({
      creates: (items, create) => inOrder(tx, items, create)
    })
  )
)
