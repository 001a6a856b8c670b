/**
 * A uniqueness rule over the tenant's `siteKeys` index, as an `onWrite` hook of a live table: the
 * write is refused when another record holds the key, and the index follows the record otherwise.
 * Runs inside the table's one atomic change, so two racing inserts can never both take a key.
 */
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { slot, type Tenant } from "./Store.js"

/** Holder of each unique site value (site domain, page path and post slug per site, link page slug). */
const siteKeys = slot("unique_keys", HashMap.empty<string, string>())

export const uniqueKey =
  <A extends { readonly id: string }, E>(key: (record: A) => string | null, refuse: (holder: string, record: A) => E) =>
  (t: Tenant, record: A, previous: A | undefined): Either.Either<Tenant, E> => {
    const wanted = key(record)
    const keys = siteKeys.get(t)
    const holder = wanted === null ? Option.none() : HashMap.get(keys, wanted)
    if (Option.isSome(holder) && holder.value !== record.id) return Either.left(refuse(holder.value, record))
    const before = previous === undefined ? null : key(previous)
    const freed = before === null ? keys : HashMap.remove(keys, before)
    return Either.right(siteKeys.set(t, wanted === null ? freed : HashMap.set(freed, wanted, record.id)))
  }
