/**
 * The server's synchronous SHA-256 for API keys and the core's Web Crypto one give the same hex, so
 * a key stored by one process is found by another (a server beside an embedded kernel or the stdio
 * entry on one store).
 */
import { Access } from "@crm/core"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as KeyDigest from "../../examples/server/src/KeyDigest.js"

describe("the API keys' digest", () => {
  it("is the same under node's createHash as under Web Crypto, for any text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 100 }), async (text) => {
        expect(await Effect.runPromise(KeyDigest.node(text))).toBe(
          await Effect.runPromise(Access.ApiKey.webCrypto(text))
        )
      }),
      { numRuns: 200 }
    )
  })
})
