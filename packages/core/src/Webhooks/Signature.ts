/**
 * Delivery signatures: `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each `v1` an
 * HMAC-SHA256 of `<t>.<raw body>` keyed by a secret's UTF-8 bytes (Stripe's scheme, so Stripe's
 * verifiers work unchanged). Secrets are `whsec_` + base62 random; the bytes of the whole string,
 * prefix included, are the key. Computation only (Web Crypto), no I/O.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Base62 from "../internal/base62.js"

export const HEADER = "X-Service-Signature"
export const SECRET_PREFIX = "whsec_"

const SECRET_BYTES = 32
const encoder = new TextEncoder()

export const generateSecret: Effect.Effect<string> = Effect.sync(() => {
  const bytes = new Uint8Array(SECRET_BYTES)
  globalThis.crypto.getRandomValues(bytes)
  return SECRET_PREFIX + Base62.encode(Base62.bytesToBigInt(bytes), Base62.widthForBytes(SECRET_BYTES))
})

const keyOf = (secret: string, usage: "sign" | "verify") =>
  globalThis.crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage])

const signedBytes = (timestamp: number, body: string | Uint8Array): Uint8Array => {
  const head = encoder.encode(`${timestamp}.`)
  const tail = typeof body === "string" ? encoder.encode(body) : body
  const out = new Uint8Array(head.length + tail.length)
  out.set(head)
  out.set(tail, head.length)
  return out
}

const hex = (buffer: ArrayBuffer): string =>
  Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("")

const hmac = async (secret: string, timestamp: number, body: string | Uint8Array): Promise<string> =>
  hex(await globalThis.crypto.subtle.sign("HMAC", await keyOf(secret, "sign"), signedBytes(timestamp, body)))

/** The header value for a body sent at `timestamp` (unix seconds), one `v1` per secret, in the given order. */
export const sign = (secrets: ReadonlyArray<string>, timestamp: number, body: string): Effect.Effect<string> =>
  Effect.promise(async () => {
    const signatures = await Promise.all(secrets.map((secret) => hmac(secret, timestamp, body)))
    return [`t=${timestamp}`, ...signatures.map((signature) => `v1=${signature}`)].join(",")
  })

const parseHeader = (
  header: string
): { readonly timestamp: number; readonly signatures: Array<string> } | undefined => {
  let timestamp: number | undefined
  const signatures: Array<string> = []
  for (const part of header.split(",")) {
    const eq = part.indexOf("=")
    if (eq === -1) continue
    const name = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (name === "t" && /^\d{1,15}$/.test(value)) timestamp = Number(value)
    else if (name === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase())
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures }
}

const fromHex = (text: string): Uint8Array => Uint8Array.from(text.match(/../g)!, (pair) => Number.parseInt(pair, 16))

const matches = async (
  parsed: { readonly timestamp: number; readonly signatures: ReadonlyArray<string> },
  rawBody: string | Uint8Array,
  secrets: string | ReadonlyArray<string>
): Promise<boolean> => {
  const data = signedBytes(parsed.timestamp, rawBody)
  for (const secret of typeof secrets === "string" ? [secrets] : secrets) {
    const key = await keyOf(secret, "verify")
    for (const signature of parsed.signatures) {
      if (await globalThis.crypto.subtle.verify("HMAC", key, fromHex(signature), data)) return true
    }
  }
  return false
}

const unixSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

/**
 * For receivers: whether `header` carries a valid signature of `rawBody` (the bytes exactly as
 * received, before any JSON parsing) by any of `secrets`, made within `toleranceSeconds` of `now`
 * (unix seconds; Effect's `Clock` when omitted), which refuses replays of old deliveries.
 * Comparison is Web Crypto's `verify`, constant-time.
 */
export const verifySignature = (
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secrets: string | ReadonlyArray<string>,
  options: { readonly toleranceSeconds: number; readonly now?: number }
): Effect.Effect<boolean> => {
  const parsed = header == null ? undefined : parseHeader(header)
  if (parsed === undefined) return Effect.succeed(false)
  return Effect.flatMap(options.now === undefined ? unixSeconds : Effect.succeed(options.now), (now) =>
    Math.abs(now - parsed.timestamp) > options.toleranceSeconds
      ? Effect.succeed(false)
      : Effect.promise(() => matches(parsed, rawBody, secrets))
  )
}
