/**
 * The process-local cache of `AccessRepository.findKeyByHash`.
 *
 * Every request authenticates, so the key and its organisation (whose settings document is the
 * costly part to read and decode) would be read once per request unless cached. Several server
 * processes share one database, so what makes a cached answer safe is not a message from the
 * others but a number read where the request reads anyway: `organisations.access_version`
 * (migration 0027), raised in the transaction of every change of an organisation's keys or
 * settings. An entry keeps the version it was read at; the request's budget statement
 * (`RateLimiter.take`) reads the current one, and a request whose entry is older reads the key
 * again, at least that new (`Access.admit`). A change therefore applies to the next request on
 * every process, once it has committed, however late a process gets the CPU, whatever a pooler
 * between it and the database does with LISTEN, and at no statement of its own. On PGlite one
 * process holds the store and no version is read: what it changes it raises here itself, and
 * emptying the store forgets everything (`forgetAll`).
 *
 * Once one request has seen a newer version of an organisation, the organisation's older entries
 * are not answered any more: its other keys are read again at their next use, not served stale
 * until each finds out for itself. The organisation as decoded at its newest version is kept once,
 * shared by its keys' entries, and a key read again at that version is not decoded again.
 *
 * Belt and braces: an entry lives at most `maxAgeMs` (a change made by hand in SQL that does not
 * raise `access_version`), and the cache holds at most `capacity` entries, least recently used
 * evicted first. Each key's life is its own share of that, from `(1 - spread)` of it up, drawn from
 * its hash: keys first used together (4,000 customers coming back after a restart) would otherwise
 * all be read again in the same second `maxAgeMs` later, and again after that. Unknown keys are not cached: a flood of made-up keys would only evict real ones,
 * and a new key then works at once by construction.
 */
import type { Access, Settings } from "@crm/core"

export interface KeyCacheOptions {
  /** Entries kept at most; the least recently used goes first. */
  readonly capacity: number
  /** How long an entry may answer at most, whatever the versions say. */
  readonly maxAgeMs: number
  /** The share of `maxAgeMs` by which a key's life may fall short of it, from 0 (none) to 1. */
  readonly spread: number
}

export const defaultCacheOptions: KeyCacheOptions = { capacity: 16_384, maxAgeMs: 300_000, spread: 0.5 }

/** A number in [0, 1) of the hash's last characters: the same for a key on every process and read. */
const shareOf = (hash: string): number => {
  let h = 0
  for (let i = Math.max(0, hash.length - 8); i < hash.length; i++) h = (Math.imul(h, 31) + hash.charCodeAt(i)) >>> 0
  return h / 2 ** 32
}

export type Versioned = Access.FoundKey & { readonly access_version: number }

interface Entry {
  readonly value: Versioned
  /** When it stops answering. */
  readonly until: number
}

/** The newest access version seen of an organisation, and the organisation as read at it when known. */
interface Newest {
  readonly version: number
  readonly organisation: Settings.Organisation | undefined
}

export class KeyCache {
  readonly #options: KeyCacheOptions
  // Map iteration order is insertion order: re-inserting on a hit keeps the oldest use first.
  readonly #entries = new Map<string, Entry>()
  readonly #newest = new Map<string, Newest>()

  constructor(options: KeyCacheOptions) {
    this.#options = options
  }

  get size(): number {
    return this.#entries.size
  }

  /** The entry, if it is at least as new as `atLeast` and as every version seen of its organisation. */
  get(hash: string, now: number, atLeast = 0): Access.FoundKey | undefined {
    const entry = this.#entries.get(hash)
    if (entry === undefined) return undefined
    this.#entries.delete(hash)
    const { access_version, organisation } = entry.value
    if (atLeast > access_version) this.raise(organisation.id, atLeast)
    if (access_version < this.#floor(organisation.id) || now >= entry.until) {
      return undefined
    }
    this.#entries.set(hash, entry)
    return entry.value
  }

  /** What was read at `value.access_version`; kept unless a newer version was seen meanwhile. */
  put(hash: string, value: Versioned, now: number): void {
    const organisation = value.organisation.id
    const newest = this.#newest.get(organisation)
    if (newest !== undefined && value.access_version < newest.version) return
    if (newest?.version !== value.access_version || newest.organisation === undefined) {
      this.#newest.set(organisation, { version: value.access_version, organisation: value.organisation })
    }
    this.#entries.delete(hash)
    const { maxAgeMs, spread } = this.#options
    this.#entries.set(hash, { value, until: now + maxAgeMs * (1 - spread * shareOf(hash)) })
    if (this.#entries.size > this.#options.capacity) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
    // Organisations with no entry left would only accumulate: bounded by the entries' count.
    if (this.#newest.size > 2 * this.#options.capacity) this.#prune()
  }

  /** The organisation as decoded at `version`, if that is its newest version seen: no need to decode it again. */
  organisation(id: string, version: number): Settings.Organisation | undefined {
    const newest = this.#newest.get(id)
    return newest?.version === version ? newest.organisation : undefined
  }

  /** The organisation's access is at `version` now: older entries of it answer no more. */
  raise(organisation: string, version: number): void {
    if (version > this.#floor(organisation)) this.#newest.set(organisation, { version, organisation: undefined })
  }

  /** Forgets every entry: the store was emptied (`Emptying.ts`). */
  clear(): void {
    this.#entries.clear()
    this.#newest.clear()
  }

  #floor(organisation: string): number {
    return this.#newest.get(organisation)?.version ?? 0
  }

  #prune(): void {
    const live = new Set<string>()
    for (const entry of this.#entries.values()) live.add(entry.value.organisation.id)
    for (const organisation of this.#newest.keys()) if (!live.has(organisation)) this.#newest.delete(organisation)
  }
}

/**
 * The caches made over each client. On PGlite nothing reads `access_version` per request (one
 * process holds the data directory: `RateLimiter`'s `makeInProcess`), so a change made through one
 * repository must raise every cache over the same client (`raiseAll`), and emptying the store
 * (`Emptying.ts`) must forget what they all hold.
 */
const byClient = new WeakMap<object, Array<KeyCache>>()

export const register = (client: object, cache: KeyCache): void => {
  const caches = byClient.get(client)
  if (caches === undefined) byClient.set(client, [cache])
  else caches.push(cache)
}

/** Every key cached over `client` is forgotten. */
export const forgetAll = (client: object): void => {
  for (const cache of byClient.get(client) ?? []) cache.clear()
}

/** A change of `organisation` committed through `client`: no cache over it answers older entries. */
export const raiseAll = (client: object, organisation: string, version: number): void => {
  for (const cache of byClient.get(client) ?? []) cache.raise(organisation, version)
}
