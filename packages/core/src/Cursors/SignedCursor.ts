/**
 * The `cursor` of a sync list as it travels: base64url, without padding, of 57 bytes: the order
 * (1), the row's time in milliseconds since the epoch (8, signed), the row's uuid (16), and an
 * HMAC-SHA256 (32) under the server's cursor secret of those 25 bytes with the organisation and
 * the list before them. The MAC is what makes the cursor opaque: one re-encoded with another time
 * or id, cut short, or sent to another organisation, list or order does not verify. Computation
 * only (the HMAC is `CursorHmac`'s), no I/O.
 */

import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { CursorHmac, Mac } from "./CursorHmac.js"
import type { ListOrder, PageKey } from "./PageKey.js"

/** The lists that give out cursors: a cursor of one is refused by every other. */
export type ListName =
  | "contacts"
  | "companies"
  | "deals"
  | "tasks"
  | "products"
  | "records"
  | "quotes"
  | "invoices"
  | "orders"
  | "returns"
  | "tickets"
  | "purchase_orders"

/**
 * Whose list a cursor belongs to: bound into its MAC, not written into it. The organisation's id
 * as a plain string, because its branded type lives above the wire, which reads cursors.
 */
export interface CursorScope {
  readonly organisationId: string
  readonly list: ListName
}

/**
 * A cursor as a client sent it, well-formed but not yet verified: its key is a claim until the
 * MAC is checked against the list it is sent to (`Cursors.page`). Nested, so that it cannot be
 * passed where a `PageKey` is read.
 */
export interface SentCursor {
  readonly claimed: PageKey
  readonly mac: Uint8Array
}

/** The MAC under the cursor secret, keyed once per process. */
export type SigningKey = Mac

const SECRET_BYTES = 32
const KEY_BYTES = 1 + 8 + 16
const MAC_BYTES = 32
/** Every cursor has this length, so the length alone refuses a truncated one. */
const LENGTH = ((KEY_BYTES + MAC_BYTES) / 3) * 4 // 76

const ORDER_BYTES: Readonly<Record<ListOrder, number>> = { created_at: 1, updated_at: 2 }
const orderOf = (byte: number | undefined): ListOrder | undefined =>
  byte === 1 ? "created_at" : byte === 2 ? "updated_at" : undefined
/** The ECMAScript date range: a time outside it is no row's. */
const MAX_MS = 8.64e15
const base64Url = /^[A-Za-z0-9_-]+$/
const encoder = new TextEncoder()

/** 32 random bytes, as hex: what a store keeps when it has no cursor secret yet. */
export const generateSecret: Effect.Effect<Redacted.Redacted<string>> = Effect.sync(() => {
  const bytes = new Uint8Array(SECRET_BYTES)
  globalThis.crypto.getRandomValues(bytes)
  return Redacted.make(hex(bytes))
})

/** The signing key for a secret from `generateSecret`; not extractable, so it cannot leak back out. */
export const importSecret = (
  hmac: Context.Tag.Service<typeof CursorHmac>,
  secret: Redacted.Redacted<string>
): Effect.Effect<SigningKey> => hmac.keyed(fromHex(Redacted.value(secret)))

const hex = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

// Every signed or verified cursor reads a uuid this way: a loop, not a regular expression's array.
const fromHex = (text: string): Uint8Array => {
  const bytes = new Uint8Array(text.length >> 1)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16)
  return bytes
}

const keyBytes = (key: PageKey): Uint8Array => {
  const bytes = new Uint8Array(KEY_BYTES)
  const view = new DataView(bytes.buffer)
  view.setUint8(0, ORDER_BYTES[key.order])
  view.setBigInt64(1, BigInt(Date.parse(key.at)))
  bytes.set(fromHex(key.id.replaceAll("-", "")), 9)
  return bytes
}

const keyOfBytes = (bytes: Uint8Array): PageKey | undefined => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, KEY_BYTES)
  const order = orderOf(view.getUint8(0))
  const ms = Number(view.getBigInt64(1))
  if (order === undefined || Math.abs(ms) > MAX_MS) return undefined
  const id = hex(bytes.subarray(9, KEY_BYTES))
  return {
    order,
    at: new Date(ms).toISOString(),
    id: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`
  }
}

/** What the MAC covers: the scope (a uuid and a fixed name, so a line feed cannot occur in either) and the key. */
const signedBytes = (scope: CursorScope, key: PageKey): Uint8Array => {
  const head = encoder.encode(`${scope.organisationId}\n${scope.list}\n`)
  const out = new Uint8Array(head.length + KEY_BYTES)
  out.set(head)
  out.set(keyBytes(key), head.length)
  return out
}

const toBase64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")

/** The cursor that continues a walk of `scope`'s list after the row `key` names. */
export const sign = (secret: SigningKey, scope: CursorScope, key: PageKey): Effect.Effect<string> =>
  Effect.map(secret(signedBytes(scope, key)), (mac) => {
    const bytes = new Uint8Array(KEY_BYTES + MAC_BYTES)
    bytes.set(keyBytes(key))
    bytes.set(mac, KEY_BYTES)
    return toBase64Url(bytes)
  })

export const parse = (text: string): SentCursor | undefined => {
  if (text.length !== LENGTH || !base64Url.test(text)) return undefined
  const bytes = Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (char) => char.charCodeAt(0))
  const claimed = keyOfBytes(bytes)
  return claimed === undefined ? undefined : { claimed, mac: bytes.subarray(KEY_BYTES) }
}

/**
 * The key of a cursor that `sign` made for this scope and `order`, or undefined. The order is the
 * query's, not the cursor's own byte, so a cursor sent with another order does not verify.
 * The MACs are compared in constant time.
 */
export const verify = (
  secret: SigningKey,
  scope: CursorScope,
  order: ListOrder,
  sent: SentCursor
): Effect.Effect<PageKey | undefined> => {
  const key: PageKey = { ...sent.claimed, order }
  return Effect.map(secret(signedBytes(scope, key)), (mac) => (sameBytes(mac, sent.mac) ? key : undefined))
}

/** Equal in time that does not depend on where two MACs first differ. */
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let differ = 0
  for (let i = 0; i < a.length; i++) differ |= a[i]! ^ b[i]!
  return differ === 0
}
