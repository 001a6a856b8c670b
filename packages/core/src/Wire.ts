/** Wire shapes shared by every context: ids, timestamps, pages. */
import { z } from "zod"

export const Uuid = z.uuid()
/** An id in a request: PostgreSQL's uuid ignores case and the memory store's keys do not, so ids are lower-cased. */
export const IdInput = z.uuid().toLowerCase()
export const Timestamp = z.string().describe("ISO 8601 UTC timestamp with milliseconds")
/** Requests may carry any offset; responses are always normalised to UTC with milliseconds. */
export const TimestampInput = z.iso.datetime({ offset: true })
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

export interface Page {
  readonly limit: number
  readonly offset: number
}

export interface PageResult<A> {
  readonly data: ReadonlyArray<A>
  readonly limit: number
  readonly offset: number
  readonly has_more: boolean
}

export const pageEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), limit: z.number().int(), offset: z.number().int(), has_more: z.boolean() })

/** Repositories return up to `limit + 1` rows so that `has_more` costs no count query. */
export const toPage = <A>(rows: ReadonlyArray<A>, page: Page): PageResult<A> => ({
  data: rows.length > page.limit ? rows.slice(0, page.limit) : rows,
  limit: page.limit,
  offset: page.offset,
  has_more: rows.length > page.limit
})

export const toUtc = (input: string): string => new Date(input).toISOString()

/** Lower-case trimmed address: uniqueness and the `email` filter compare addresses case-insensitively. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase()
