/** What a keyset page starts after: the wire reads it from a cursor, the cursor signs it. */

/**
 * The orders a sync-capable list walks in: `created_at` is the default (newest created first, ties
 * by id descending), `updated_at` the sync order (oldest change first, ties by id ascending).
 */
export type ListOrder = "created_at" | "updated_at"

/** Where a keyset page starts: rows strictly after this one in `order` (a decoded `cursor`). */
export interface PageKey {
  readonly order: ListOrder
  /** The row's `created_at` or `updated_at` (as `order` says), ISO 8601 UTC with milliseconds. */
  readonly at: string
  readonly id: string
}
