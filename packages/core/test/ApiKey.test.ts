import { createHash } from "node:crypto"
import { crc32 as zlibCrc32 } from "node:zlib"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as ApiKey from "../src/Access/ApiKey.js"
import * as Base62 from "../src/internal/base62.js"
import { crc32 } from "../src/internal/crc32.js"

const utf8 = (text: string) => new TextEncoder().encode(text)

const randomBytes = fc.uint8Array({ minLength: 32, maxLength: 32 })
const wellFormedKey = randomBytes.map(ApiKey.fromBytes)
const alphabetChar = fc.constantFrom(...Base62.ALPHABET)
const anyChar = fc.oneof(alphabetChar, fc.string({ unit: "binary", minLength: 1, maxLength: 1 }))

describe("crc32", () => {
  it.each([
    ["", 0x00000000],
    ["a", 0xe8b7be43],
    ["123456789", 0xcbf43926],
    ["The quick brown fox jumps over the lazy dog", 0x414fa339]
  ])("crc32(%j) = %i", (text, expected) => {
    expect(crc32(utf8(text))).toBe(expected)
  })

  it("agrees with zlib on arbitrary bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => crc32(bytes) === zlibCrc32(bytes)))
  })
})

describe("base62", () => {
  it("round-trips any non-negative bigint, padded or not", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 300n) - 1n }), fc.nat({ max: 60 }), (value, pad) => {
        const bare = Base62.encode(value)
        const padded = Base62.encode(value, bare.length + pad)
        expect(padded).toHaveLength(bare.length + pad)
        expect(Base62.decode(bare)).toBe(value)
        expect(Base62.decode(padded)).toBe(value)
      })
    )
  })

  it("round-trips strings over its alphabet up to leading zeros", () => {
    fc.assert(
      fc.property(fc.string({ unit: alphabetChar, minLength: 1, maxLength: 60 }), (text) => {
        const value = Base62.decode(text)!
        expect(Base62.encode(value, text.length)).toBe(text)
      })
    )
  })

  it("orders like the numbers at a fixed width", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 1n << 64n }), fc.bigInt({ min: 0n, max: 1n << 64n }), (a, b) => {
        const [x, y] = [Base62.encode(a, 11), Base62.encode(b, 11)]
        expect(x < y).toBe(a < b)
      })
    )
  })

  it("has known encodings and refuses foreign characters", () => {
    expect(Base62.encode(0n)).toBe("0")
    expect(Base62.encode(61n)).toBe("z")
    expect(Base62.encode(62n)).toBe("10")
    expect(Base62.encode(5n, 3)).toBe("005")
    expect(() => Base62.encode(62n, 1)).toThrow(RangeError)
    expect(() => Base62.encode(-1n)).toThrow(RangeError)
    expect(Base62.decode("")).toBeUndefined()
    expect(Base62.decode("ab-c")).toBeUndefined()
    expect(Base62.decode("ab_c")).toBeUndefined()
    expect(Base62.widthForBytes(32)).toBe(43)
    expect(Base62.widthForBytes(4)).toBe(6)
  })
})

describe("ApiKey", () => {
  it("has a fixed shape", () => {
    expect(ApiKey.PREFIX).toBe("mck_")
    expect(ApiKey.LENGTH).toBe(4 + 43 + 6)
    const zeros = ApiKey.fromBytes(new Uint8Array(32))
    expect(zeros.slice(0, 47)).toBe(`mck_${"0".repeat(43)}`)
    const ones = ApiKey.fromBytes(new Uint8Array(32).fill(0xff))
    expect(ones).toHaveLength(ApiKey.LENGTH)
    expect(ApiKey.isWellFormed(zeros)).toBe(true)
    expect(ApiKey.isWellFormed(ones)).toBe(true)
    expect(() => ApiKey.fromBytes(new Uint8Array(31))).toThrow(RangeError)
  })

  it("generates well-formed, distinct keys", () => {
    const keys = Effect.runSync(Effect.replicateEffect(ApiKey.generate, 500))
    for (const key of keys) {
      expect(key).toMatch(/^mck_[0-9A-Za-z]{49}$/)
      expect(ApiKey.isWellFormed(key)).toBe(true)
    }
    expect(new Set(keys).size).toBe(keys.length)
  })

  it("accepts every key built from any 32 bytes", () => {
    fc.assert(fc.property(wellFormedKey, ApiKey.isWellFormed))
  })

  it("refuses any single-character substitution", () => {
    fc.assert(
      fc.property(wellFormedKey, fc.nat(), anyChar, (key, at, char) => {
        const i = at % key.length
        fc.pre(key[i] !== char)
        const mistyped = key.slice(0, i) + char + key.slice(i + 1)
        expect(ApiKey.isWellFormed(mistyped)).toBe(false)
      })
    )
  })

  it("refuses every single-character substitution of one key, exhaustively", () => {
    const key = Effect.runSync(ApiKey.generate)
    for (let i = 0; i < key.length; i++) {
      for (const char of Base62.ALPHABET + "_-") {
        if (char === key[i]) continue
        expect(ApiKey.isWellFormed(key.slice(0, i) + char + key.slice(i + 1))).toBe(false)
      }
    }
  })

  it("refuses any transposition of two adjacent different characters", () => {
    fc.assert(
      fc.property(wellFormedKey, fc.nat(), (key, at) => {
        const i = at % (key.length - 1)
        fc.pre(key[i] !== key[i + 1])
        const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2)
        expect(ApiKey.isWellFormed(swapped)).toBe(false)
      })
    )
  })

  it("refuses truncation, extension, other prefixes and bodies above 256 bits", () => {
    fc.assert(
      fc.property(wellFormedKey, fc.integer({ min: 1, max: 10 }), (key, n) => {
        expect(ApiKey.isWellFormed(key.slice(0, -n))).toBe(false)
        expect(ApiKey.isWellFormed(key + "0".repeat(n))).toBe(false)
        expect(ApiKey.isWellFormed(` ${key}`.slice(0, key.length))).toBe(false)
      })
    )
    expect(ApiKey.isWellFormed("")).toBe(false)
    expect(ApiKey.isWellFormed(`ghp_${"0".repeat(49)}`)).toBe(false)
    // A body of 43 "z"s is base62 but exceeds 2^256 - 1; give it a valid checksum anyway.
    const prefixAndBody = `mck_${"z".repeat(43)}`
    const forged = prefixAndBody + Base62.encode(BigInt(crc32(utf8(prefixAndBody))), 6)
    expect(ApiKey.isWellFormed(forged)).toBe(false)
  })

  it("hashes to the lowercase hex SHA-256 node:crypto computes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(wellFormedKey, fc.string({ unit: "grapheme" })), async (token) => {
        const expected = createHash("sha256").update(token, "utf8").digest("hex")
        expect(await Effect.runPromise(ApiKey.hash(token))).toBe(expected)
      })
    )
    expect(await Effect.runPromise(ApiKey.hash(""))).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )
  })
})
