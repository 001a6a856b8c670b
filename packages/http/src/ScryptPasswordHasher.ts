/**
 * The `PasswordHasher` port with scrypt from `node:crypto`: asynchronous, so each check runs on
 * libuv's thread pool and never on the event loop. N=2^15, r=8, p=1 costs 32 MiB and about 80 ms
 * of CPU per check (docs/people.md has the measurement); a 16-byte salt and a 32-byte key.
 *
 * A hash is stored as `scrypt$N=32768,r=8,p=1$<salt>$<key>` (base64url), so the parameters can be
 * raised later without invalidating what is stored: `verify` reads them back from the string. It
 * reads them within bounds, so that a stored value (a restored backup, a row someone edited) cannot
 * make a single check take seconds or gigabytes.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { People } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export interface ScryptCost {
  /** The CPU and memory cost, a power of two: 2^15 in service, 2^10 in tests. */
  readonly cost: number
  /** Derivations at once (`DEFAULT_CONCURRENCY` unless given). */
  readonly concurrency?: number
}

export const DEFAULT_COST = 2 ** 15
const BLOCK_SIZE = 8
const PARALLELISM = 1
const SALT_BYTES = 16
const KEY_BYTES = 32

/** The most a stored hash may ask for: 2^17 (128 MiB at r=8); beyond, the check refuses rather than runs. */
export const MAX_COST = 2 ** 17
const MAX_BLOCK_SIZE = 16
const MAX_PARALLELISM = 4
/** What a check may allocate at most: the cost of 2^17 at r=8. */
const MAX_MEMORY = 129 * 1024 * 1024
const DEFAULT_MAXMEM = 64 * 1024 * 1024

const ENCODED = /^scrypt\$N=(\d{1,7}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,128})\$([A-Za-z0-9_-]{16,128})$/

interface Parameters {
  readonly N: number
  readonly r: number
  readonly p: number
}

const isPowerOfTwo = (n: number) => n >= 2 && (n & (n - 1)) === 0

/** What OpenSSL allocates for a derivation, which node's `maxmem` bounds. */
const memoryOf = ({ N, r, p }: Parameters) => 128 * r * (N + p + 2)

const deriveNow = (password: string, salt: Buffer, length: number, parameters: Parameters) =>
  Effect.async<Buffer, Error>((resume) => {
    // Normalised, so that the same password typed where accents compose differently still matches.
    scrypt(
      password.normalize("NFC"),
      salt,
      length,
      { ...parameters, maxmem: Math.max(DEFAULT_MAXMEM, memoryOf(parameters)) },
      (error, key) => resume(error === null ? Effect.succeed(key) : Effect.fail(error))
    )
  })

/** A stored hash's parameters, salt and key, or undefined when it is not one this hasher would run. */
export const decode = (
  stored: string
): { readonly parameters: Parameters; readonly salt: Buffer; readonly key: Buffer } | undefined => {
  const match = ENCODED.exec(stored)
  if (match === null) return undefined
  const parameters = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) }
  if (!isPowerOfTwo(parameters.N) || parameters.N > MAX_COST) return undefined
  if (parameters.r < 1 || parameters.r > MAX_BLOCK_SIZE || parameters.p < 1 || parameters.p > MAX_PARALLELISM) {
    return undefined
  }
  if (memoryOf(parameters) > MAX_MEMORY) return undefined
  const salt = Buffer.from(match[4]!, "base64url")
  const key = Buffer.from(match[5]!, "base64url")
  if (salt.length < SALT_BYTES || key.length < 16) return undefined
  return { parameters, salt, key }
}

/**
 * How many derivations run at once by default: half of libuv's pool (four threads unless the
 * process sets UV_THREADPOOL_SIZE; a host that raises it may raise this too). The pool also reads
 * files, resolves webhook targets' names and digests new API keys; a burst of sign-ins queues here,
 * in this process, and leaves those threads to the rest.
 */
export const DEFAULT_CONCURRENCY = 2

export const make = ({ cost, concurrency = DEFAULT_CONCURRENCY }: ScryptCost): People.PasswordHasher["Type"] => {
  if (!isPowerOfTwo(cost) || cost > MAX_COST) throw new Error(`scrypt cost must be a power of two up to ${MAX_COST}`)
  const parameters: Parameters = { N: cost, r: BLOCK_SIZE, p: PARALLELISM }
  const slots = Effect.unsafeMakeSemaphore(concurrency)
  const derive = (password: string, salt: Buffer, length: number, parameters: Parameters) =>
    slots.withPermits(1)(deriveNow(password, salt, length, parameters))
  return {
    hash: (password) =>
      Effect.suspend(() => {
        const salt = randomBytes(SALT_BYTES)
        return Effect.map(
          derive(password, salt, KEY_BYTES, parameters),
          (key) =>
            `scrypt$N=${parameters.N},r=${parameters.r},p=${parameters.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
        )
      }).pipe(Effect.orDie),
    verify: (password, stored) => {
      const decoded = decode(stored)
      if (decoded === undefined) return Effect.succeed(false)
      return derive(password, decoded.salt, decoded.key.length, decoded.parameters).pipe(
        Effect.map((key) => timingSafeEqual(key, decoded.key)),
        Effect.orElseSucceed(() => false)
      )
    }
  }
}

export const layerWith = (options: ScryptCost): Layer.Layer<People.PasswordHasher> =>
  Layer.sync(People.PasswordHasher, () => make(options))

export const layer: Layer.Layer<People.PasswordHasher> = layerWith({ cost: DEFAULT_COST })
