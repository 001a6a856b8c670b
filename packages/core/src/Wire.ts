/** Wire shapes shared by every context: ids, timestamps, pages, and `Given`: a shape as the core hands it out. */
import { z } from "zod"
import * as SignedCursor from "./Cursors/SignedCursor.js"
import * as SchemaWalk from "./SchemaWalk.js"

export const Uuid = z.uuid()
/** An id in a request: PostgreSQL's uuid ignores case and the memory store's keys do not, so ids are lower-cased. */
export const IdInput = z.uuid().toLowerCase()
export const Timestamp = z.string().describe("ISO 8601 UTC timestamp with milliseconds")
/** Requests may carry any offset; responses are always normalised to UTC with milliseconds. */
export const TimestampInput = z.iso.datetime({ offset: true })
/**
 * An email address in a request: addresses are compared trimmed and lower-cased, so one is accepted
 * with surrounding white space and kept trimmed (its letter case as sent). A check, not a pipe, so
 * that the OpenAPI document and the tools still describe it as an email.
 */
export const EmailInput = z.string().max(320).trim().check(z.email())
export const Custom = z.record(z.string(), z.unknown()).describe("free-form custom fields")

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 200

export const PageQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .default(DEFAULT_LIMIT)
    .describe(`page size, 1..${MAX_LIMIT}, default ${DEFAULT_LIMIT}`),
  offset: z.coerce.number().int().min(0).default(0).describe("records to skip, 0 or more")
}

import type { ListOrder, PageKey } from "./Cursors/PageKey.js"

export type { ListOrder, PageKey }

/**
 * The query fields of a list a client can sync from (`GET /contacts?order=updated_at&cursor=...`):
 * spread into a `*ListQuery` beside `PageQuery`. The rules between them are `refineSyncQuery`, which
 * the transport applies to the whole query (the `*ListQuery` stays unrefined so that MCP tools can
 * pick single fields from it). A cursor is only parsed here: the list's service verifies its MAC
 * (`Cursors.page`), since only it knows the organisation and the list.
 */
export const SyncQuery = {
  updated_since: TimestampInput.optional().describe("only records updated at or after this time"),
  order: z
    .enum(["updated_at"])
    .optional()
    .describe(
      "updated_at: oldest change first, ties by id (for syncing; with include_archived, archiving counts as a change); omitted: newest created first, ties by id"
    ),
  cursor: z
    .string()
    .max(200)
    .transform((cursor, ctx) => {
      const key = SignedCursor.parse(cursor)
      if (key === undefined) {
        ctx.addIssue({ code: "custom", message: "not a cursor this API gave out (next_cursor)", input: cursor })
        return z.NEVER
      }
      return key
    })
    .optional()
    .describe(
      "opaque: the next_cursor of the previous page, sent to the same list with the same order and filters; the page starts right after that page's last record, at the same cost however deep (keyset). Signed and bound to the organisation, the list and the order: any other is 422. Not combined with offset"
    )
}

/** The query field of a list whose records are archived by DELETE. */
export const ArchivedQuery = {
  include_archived: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .describe(
      "true: archived records are listed too, each row then carrying archived_at (null while live), so a sync client sees deletions"
    )
}

interface SyncFields {
  readonly order?: unknown
  readonly cursor?: unknown
  readonly offset?: unknown
}

/**
 * The rules between the sync fields, for `superRefine` on a list query: a cursor belongs to the
 * order it was made for (422 naming `cursor`), and says itself where the page starts, so `offset`
 * must be 0 beside it (422 naming `offset`).
 */
export const refineSyncQuery = (query: SyncFields, ctx: z.RefinementCtx): void => {
  const cursor = query.cursor as SignedCursor.SentCursor | undefined
  if (cursor === undefined || typeof cursor !== "object") return
  const order: ListOrder = query.order === "updated_at" ? "updated_at" : "created_at"
  // The order the cursor claims, for a clear message; its MAC, checked later, binds it to the order anyway.
  const made = cursor.claimed.order
  if (made !== order) {
    ctx.addIssue({
      code: "custom",
      path: ["cursor"],
      message: `this cursor was made for ${made === "created_at" ? "the default order" : `order=${made}`}, not ${order === "created_at" ? "the default order" : `order=${order}`}`,
      input: query.order
    })
  }
  if (query.offset !== undefined && query.offset !== 0) {
    ctx.addIssue({
      code: "custom",
      path: ["offset"],
      message: "offset cannot be combined with cursor: the cursor says where the page starts",
      input: query.offset
    })
  }
}

/**
 * How much of a list to read and from where. The sync fields keep their wire names because a
 * parsed `*ListQuery` is passed on as the page: a list that takes them needs no mapping.
 */
export interface Page {
  readonly limit: number
  readonly offset: number
  /** Default `created_at` (newest first); `updated_at` walks oldest change first, ties by id. */
  readonly order?: "updated_at" | undefined
  /** Rows strictly after this key, in `order` (a keyset page). */
  readonly cursor?: PageKey | undefined
  /** Only rows whose `updated_at` is at or after this instant. */
  readonly updated_since?: string | undefined
  /** Archived rows too, each (and each live one) with its `archived_at`. */
  readonly include_archived?: boolean | undefined
}

/** A sync list's query as its service gets it: the cursor as sent, its MAC not yet verified. */
export interface SyncRequest extends Omit<Page, "cursor"> {
  readonly cursor?: SignedCursor.SentCursor | undefined
}

export interface PageResult<A> {
  readonly data: ReadonlyArray<A>
  readonly limit: number
  readonly offset: number
  readonly has_more: boolean
}

export const pageEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), limit: z.number().int(), offset: z.number().int(), has_more: z.boolean() })

/** What a row of a sync page is keyed by: `next_cursor` is made from the last row of a page. */
export interface Keyed {
  readonly id: string
  readonly created_at: string
  readonly updated_at: string
}

export interface SyncPageResult<A> extends PageResult<A> {
  readonly next_cursor: string | null
}

const ArchivedAt = Timestamp.nullable()
  .optional()
  .describe("only with include_archived=true: when the record was archived (DELETE), null while it is live")

/**
 * The page of a list that takes `SyncQuery`: `next_cursor` continues it. `archivable` lists (whose
 * records DELETE archives) take `include_archived`, and their rows may carry `archived_at`.
 */
export const syncPageEnvelope = <T extends z.ZodObject>(item: T, options: { readonly archivable: boolean }) =>
  z.object({
    // An extension, not an intersection: the record's schema admits no property it does not name,
    // so no row could match both halves of an `allOf` of it and `{archived_at}`.
    data: z.array(options.archivable ? item.extend({ archived_at: ArchivedAt }) : item),
    limit: z.number().int(),
    offset: z.number().int(),
    has_more: z.boolean(),
    next_cursor: z
      .string()
      .nullable()
      .describe("send as cursor (with the same order and filters) for the next page; null when has_more is false")
  })

/** Repositories return up to `limit + 1` rows so that `has_more` costs no count query. */
export const toPage = <A>(rows: ReadonlyArray<A>, page: Page): PageResult<A> => ({
  data: rows.length > page.limit ? rows.slice(0, page.limit) : rows,
  limit: page.limit,
  offset: page.offset,
  has_more: rows.length > page.limit
})

/** The key of a row in the page's order, for the cursor of the page after it. */
export const keyOf = (row: Keyed, page: Pick<Page, "order">): PageKey =>
  page.order === "updated_at"
    ? { order: "updated_at", at: row.updated_at, id: row.id }
    : { order: "created_at", at: row.created_at, id: row.id }

/**
 * A value as a handler may give it for a wire shape: the core hands out read-only arrays and
 * records, which REST routes and assistant tools answer as they are.
 */
export type Given<T> =
  T extends ReadonlyArray<infer I>
    ? ReadonlyArray<Given<I>>
    : T extends object
      ? { readonly [K in keyof T]: Given<T[K]> }
      : T

export const toUtc = (input: string): string => new Date(input).toISOString()

/** Lower-case trimmed address: uniqueness and the `email` filter compare addresses case-insensitively. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase()

/** A value changed from one form of a shape into another (`encoder`, `storedDecoder`). */
export type Convert = (value: unknown) => unknown

/** A JSON object: not null, not an array. */
export const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const notConverted = (walked: SchemaWalk.Node): never => {
  throw new Error(`a ${SchemaWalk.nameOf(walked)} schema is not converted`)
}

const wrapped = (
  walked: { readonly inner: SchemaWalk.Schema },
  self: (schema: SchemaWalk.Schema) => Convert | undefined
) => self(walked.inner)

/** The items of an array, or the entries of a record, each converted by `convert`. */
const eachOf = (convert: Convert | undefined, record: boolean): Convert | undefined => {
  if (convert === undefined) return undefined
  const each = (value: unknown) => (value === null || value === undefined ? value : convert(value))
  return (value) => {
    if (Array.isArray(value)) {
      const out = value.map(each)
      return out.every((item, n) => item === value[n]) ? value : out
    }
    if (!isPlainObject(value) || !record) return value
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, each(item)]))
  }
}

/**
 * Made once from a schema: a function that converts every codec field of a value of it by `leaf`,
 * copying only the objects and arrays on the way to a field it changed. Undefined for a schema that
 * holds no codec: its values need no converting at all.
 */
const converter = (leaf: (codec: SchemaWalk.Codec, pipe: SchemaWalk.NodeOf<"pipe">) => Convert) =>
  SchemaWalk.fold<Convert | undefined>({
    pipe: (pipe, self) => (pipe.codec === undefined ? self(pipe.out) : leaf(pipe.codec, pipe)),
    optional: wrapped,
    nullable: wrapped,
    default: wrapped,
    prefault: wrapped,
    nonoptional: wrapped,
    readonly: wrapped,
    catch: wrapped,
    object: ({ fields: shape }, self) => {
      const fields = shape.flatMap(({ key, schema }) => {
        const convert = self(schema)
        return convert === undefined ? [] : [[key, convert] as const]
      })
      if (fields.length === 0) return undefined
      return (value) => {
        if (!isPlainObject(value)) return value
        let out: Record<string, unknown> | undefined
        for (const [key, convert] of fields) {
          const before = value[key]
          if (before === undefined || before === null) continue
          const after = convert(before)
          if (after === before) continue
          out ??= { ...value }
          out[key] = after
        }
        return out ?? value
      }
    },
    array: ({ element }, self) => eachOf(self(element), false),
    record: ({ value }, self) => eachOf(self(value), true),
    union: ({ options: schemas }, self) => {
      const options = schemas.map((option) => {
        const walked = SchemaWalk.node(option)
        return {
          fields: walked.kind === "object" ? new Set(walked.fields.map(({ key }) => key)) : undefined,
          convert: self(option)
        }
      })
      if (options.every((option) => option.convert === undefined)) return undefined
      // A value is converted as the first option that names every field it has (records of different
      // kinds, as `fetch` answers, have fields of their own); that needs every option to be an object.
      if (options.some((option) => option.fields === undefined)) {
        throw new Error("a union of other schemas than objects, holding codec fields, is not converted")
      }
      return (value) => {
        if (!isPlainObject(value)) return value
        const keys = Object.keys(value)
        const option = options.find(({ fields }) => keys.every((key) => fields!.has(key)))
        return option?.convert === undefined ? value : option.convert(value)
      }
    },
    lazy: notConverted,
    intersection: notConverted,
    tuple: notConverted,
    other: (walked) => (walked.name === "map" || walked.name === "set" ? notConverted(walked) : undefined),
    otherwise: () => undefined
  })

const encoding = converter((codec) => codec.encode)

/**
 * The renderer of a response's values: each codec field (a money `Amount`) becomes its wire form (a
 * JSON number). Undefined when the shape holds none, which is most of them.
 */
export const encoder = (schema: SchemaWalk.Schema): Convert | undefined => encoding(schema)

const storedDecoding = converter((codec, pipe) => {
  const wire = SchemaWalk.nameOf(SchemaWalk.node(pipe.in))
  return (value) => (typeof value === wire ? codec.decode(value) : value)
})

/**
 * The reader of a document a store keeps as JSON: a codec field holds its inside form (an `Amount`'s
 * text), or its wire form where a release before the field had a codec wrote it (a number), which is
 * decoded. Undefined when the shape holds no codec.
 */
export const storedDecoder = (schema: SchemaWalk.Schema): Convert | undefined => storedDecoding(schema)

/**
 * A `z.toJSONSchema` override: a codec is described as it is written, in responses too (a money field
 * is a JSON number, not the text it is held as).
 */
export const asWritten = (ctx: { readonly zodSchema: unknown; readonly jsonSchema: Record<string, unknown> }) => {
  const walked = SchemaWalk.node(ctx.zodSchema as SchemaWalk.Schema)
  if (walked.kind !== "pipe" || walked.codec === undefined) return
  const { $schema: _dialect, ...written } = z.toJSONSchema(walked.in, { io: "input" })
  const { description } = ctx.jsonSchema
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key]
  Object.assign(ctx.jsonSchema, written, description === undefined ? {} : { description })
}
