import { webcrypto } from "node:crypto"
import { afterEach, describe, expect, it, vi } from "vitest"
import { randomUuid } from "../src/internal/uuid.js"

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("request ids and idempotency keys", () => {
  afterEach(() => vi.unstubAllGlobals())

  it("are version 4 UUIDs where crypto.randomUUID exists", () => {
    expect(randomUuid()).toMatch(V4)
  })

  it("are still version 4 UUIDs, all different, in a browser page served over plain http (no randomUUID)", () => {
    vi.stubGlobal("crypto", { getRandomValues: (bytes: Uint8Array) => webcrypto.getRandomValues(bytes) })
    expect(globalThis.crypto.randomUUID).toBeUndefined()
    const ids = Array.from({ length: 1000 }, randomUuid)
    for (const id of ids) expect(id).toMatch(V4)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
