/**
 * The server's synchronous HMAC for cursors and the core's Web Crypto one give the same bytes, so
 * a cursor one signs the other verifies (a server beside an embedded kernel or the stdio entry on
 * one store).
 */
import { Cursors } from "@crm/core"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as CursorHmac from "../../examples/server/src/CursorHmac.js"

const macOf = (hmac: Cursors.CursorHmac["Type"], secret: Uint8Array, data: Uint8Array) =>
  Effect.runPromise(Effect.flatMap(hmac.keyed(secret), (mac) => mac(data)))

describe("the cursors' HMAC", () => {
  it("is the same under node's createHmac as under Web Crypto, for any secret and bytes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 200 }),
        async (secret, data) => {
          expect(await macOf(CursorHmac.node, secret, data)).toEqual(await macOf(Cursors.webCrypto, secret, data))
        }
      ),
      { numRuns: 200 }
    )
  })
})
