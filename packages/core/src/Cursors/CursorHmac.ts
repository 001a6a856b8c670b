import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** HMAC-SHA256 keyed once by the cursor secret: the MAC of some bytes. */
export type Mac = (data: Uint8Array) => Effect.Effect<Uint8Array>

/**
 * How cursors are MACed: HMAC-SHA256 under the secret's bytes. The core's own (`webCrypto`, used
 * when nothing is provided) is Web Crypto's, which node 20 runs as an asynchronous job on its
 * thread pool: about 54 µs of CPU per MAC and a hand-off to another thread, on every list page
 * that has more. A host with a synchronous HMAC (node's `createHmac`, under 10 µs) provides it here
 * (the server does); both give the same bytes, so processes of either kind share cursors.
 */
export class CursorHmac extends Context.Tag("@crm/core/CursorHmac")<
  CursorHmac,
  { readonly keyed: (secret: Uint8Array) => Effect.Effect<Mac> }
>() {}

export const webCrypto: Context.Tag.Service<typeof CursorHmac> = {
  keyed: (secret) =>
    Effect.map(
      Effect.promise(() =>
        globalThis.crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
      ),
      (key): Mac =>
        (data) =>
          Effect.promise(async () => new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, data)))
    )
}
