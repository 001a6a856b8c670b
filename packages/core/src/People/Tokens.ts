/**
 * The secret tokens of people (session, invitation, sign-in and reset links): 32 random bytes in
 * base64url, handed out once. Storage keeps only their SHA-256 in hex, as of an API key: a leaked
 * table holds nothing that signs anyone in, and 256 random bits need no slow hash.
 */
import * as Effect from "effect/Effect"
import { hash } from "../Access/ApiKey.js"

const RANDOM_BYTES = 32
const SHAPE = /^[A-Za-z0-9_-]{43}$/

const encoder = new TextEncoder()

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "")

export const generate: Effect.Effect<string> = Effect.sync(() => {
  const bytes = new Uint8Array(RANDOM_BYTES)
  globalThis.crypto.getRandomValues(bytes)
  return base64url(bytes)
})

/** Whether `token` could have been issued by `generate`: a malformed one is refused before storage is asked. */
export const isWellFormed = (token: string): boolean => SHAPE.test(token)

/** What storage keeps of a token and finds it by. */
export const hashOf: (token: string) => Effect.Effect<string> = hash

/**
 * The CSRF token of a session: base64url(SHA-256("csrf:" + session token)). Derived, so nothing
 * more is stored; the session cookie is HttpOnly, so a page of another site can neither read the
 * token it is made from nor make it.
 */
export const csrfTokenOf = (sessionToken: string): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", encoder.encode(`csrf:${sessionToken}`))).pipe(
    Effect.map((digest) => base64url(new Uint8Array(digest)))
  )
