/**
 * Base62 over non-negative bigints. The alphabet is in ASCII order so that, at a fixed
 * width, comparing encodings as strings agrees with comparing the numbers.
 */

export const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const BASE = 62n

const DIGIT_VALUE: ReadonlyMap<string, bigint> = new Map(
  Array.from(ALPHABET, (char, index) => [char, BigInt(index)] as const)
)

/**
 * Encodes `value`, left-padded with "0" to `width` characters when a width is given. A value that needs more
 * than `width` digits is a caller bug (the width is meant to be the fixed size of a
 * format), so it throws rather than silently producing a longer string.
 */
export const encode = (value: bigint, width?: number): string => {
  if (value < 0n) throw new RangeError("base62.encode: negative value")
  let digits = ""
  let rest = value
  do {
    digits = ALPHABET[Number(rest % BASE)] + digits
    rest /= BASE
  } while (rest > 0n)
  if (width === undefined) return digits
  if (digits.length > width) {
    throw new RangeError(`base62.encode: value needs ${digits.length} digits, more than ${width}`)
  }
  return digits.padStart(width, "0")
}

/** `undefined` for the empty string or any character outside the alphabet. */
export const decode = (text: string): bigint | undefined => {
  if (text.length === 0) return undefined
  let value = 0n
  for (const char of text) {
    const digit = DIGIT_VALUE.get(char)
    if (digit === undefined) return undefined
    value = value * BASE + digit
  }
  return value
}

/** Big-endian: the first byte is the most significant. */
export const bytesToBigInt = (bytes: Uint8Array): bigint => {
  let value = 0n
  for (const byte of bytes) value = (value << 8n) | BigInt(byte)
  return value
}

/** The number of base62 digits that any value of `byteLength` bytes fits in. */
export const widthForBytes = (byteLength: number): number => {
  const max = (1n << BigInt(byteLength * 8)) - 1n
  return encode(max).length
}
