/**
 * API key format: `mck_` + 43 base62 characters of 32 random bytes + a 6-character
 * base62 CRC-32 of everything before it (the scheme GitHub uses for its tokens).
 *
 * The checksum lets the server refuse a mistyped or truncated key without a database
 * lookup, and lets secret scanners tell a real key from a look-alike. It is not a
 * secret and adds no security; the 256 random bits do. Keys are stored only as
 * `hash(token)`, so a leaked table does not leak usable keys.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Base62 from "../internal/base62.js"
import { crc32 } from "../internal/crc32.js"

export const PREFIX = "mck_"

const RANDOM_BYTES = 32

/** Fixed so that the length check alone refuses most truncations and paste accidents. */
const BODY_LENGTH = Base62.widthForBytes(RANDOM_BYTES) // 43

/** 62^6 > 2^32, so every CRC-32 fits. */
const CHECKSUM_LENGTH = 6

export const LENGTH = PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH // 53

const MAX_BODY_VALUE = (1n << BigInt(RANDOM_BYTES * 8)) - 1n

const encoder = new TextEncoder()

const checksumOf = (prefixAndBody: string): string =>
  Base62.encode(BigInt(crc32(encoder.encode(prefixAndBody))), CHECKSUM_LENGTH)

/**
 * The key for given random bytes. Exported so the format can be tested
 * deterministically; production code uses `generate`.
 */
export const fromBytes = (bytes: Uint8Array): string => {
  if (bytes.length !== RANDOM_BYTES) {
    throw new RangeError(`ApiKey.fromBytes: expected ${RANDOM_BYTES} bytes, got ${bytes.length}`)
  }
  const prefixAndBody = PREFIX + Base62.encode(Base62.bytesToBigInt(bytes), BODY_LENGTH)
  return prefixAndBody + checksumOf(prefixAndBody)
}

export const generate: Effect.Effect<string> = Effect.sync(() => {
  const bytes = new Uint8Array(RANDOM_BYTES)
  globalThis.crypto.getRandomValues(bytes)
  return fromBytes(bytes)
})

/**
 * Whether `token` could have been issued by `generate`. Cheap and constant in the
 * number of stored keys: the caller should refuse a malformed key before touching
 * storage.
 */
export const isWellFormed = (token: string): boolean => {
  if (token.length !== LENGTH || !token.startsWith(PREFIX)) return false
  const prefixAndBody = token.slice(0, PREFIX.length + BODY_LENGTH)
  const body = prefixAndBody.slice(PREFIX.length)
  const checksum = token.slice(PREFIX.length + BODY_LENGTH)
  const value = Base62.decode(body)
  // 43 base62 digits can hold more than 256 bits; such a body was never issued.
  if (value === undefined || value > MAX_BODY_VALUE) return false
  if (Base62.decode(checksum) === undefined) return false
  return checksumOf(prefixAndBody) === checksum
}

/**
 * Lowercase hex SHA-256 of the token's UTF-8 bytes: what storage keeps and looks keys
 * up by. A fast unsalted hash is enough because the input has 256 bits of entropy;
 * a password hash would only slow every request down.
 */
export const hash = (token: string, digest: Digest = webCrypto): Effect.Effect<string> => digest(token)

/** SHA-256 of a text's UTF-8 bytes as lowercase hex. */
export type Digest = (text: string) => Effect.Effect<string>

/**
 * Web Crypto's, which node 20 runs as an asynchronous job on its thread pool: tens of µs of CPU and
 * a hand-off to another thread for each key seen for the first time. A host with a synchronous
 * SHA-256 (node's `createHash`) provides it as `KeyDigest` (the server does); same bytes.
 */
export const webCrypto: Digest = (text) =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", encoder.encode(text))).pipe(
    Effect.map((digest) => Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join(""))
  )

/** How `Access` hashes keys, when the host has better than `webCrypto`. */
export class KeyDigest extends Context.Tag("@crm/core/KeyDigest")<KeyDigest, Digest>() {}

/**
 * What a connected app's key is stored and found by (issue 37): derived from its OAuth grant's id,
 * which is no secret, since the app presents an access token, never this. No bearer token reaches
 * it: `authenticate` looks up only well-formed keys, and "app:" begins none.
 */
export const appHash = (grantId: string, digest: Digest = webCrypto): Effect.Effect<string> => digest(`app:${grantId}`)
