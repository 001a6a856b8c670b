/**
 * Money amounts as exact decimals. The wire carries JSON numbers in major units; a record carries an
 * `Amount`, the decimal's text; arithmetic is `BigDecimal`. No binary floating point touches an amount
 * between a request's number and the response's.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Option from "effect/Option"
import { z } from "zod"

const CANONICAL = /^(0|-?(0\.\d*[1-9]|[1-9]\d*(\.\d*[1-9])?))$/
/**
 * An amount inside the kernel: plain decimal text (`"1234.5"`, `"-0.07"`, `"1000000000000000000000"`),
 * no exponent, no trailing zeros, `"0"` for zero. Text keeps every digit a `numeric` column holds, and it
 * survives every copy the stores make (`structuredClone`, JSON) unchanged.
 */
export const AmountText = z
  .string()
  .regex(CANONICAL, "must be decimal text without exponent or trailing zeros")
  .brand<"Amount">()
export type Amount = z.output<typeof AmountText>

/**
 * The exact decimal a JSON number was written as. `String(n)` is the shortest text that reads back as the
 * same double, which is the text a client wrote for any number of up to 15 significant digits: `0.1` is 0.1,
 * not 0.1000000000000000055511151231257827. `BigDecimal.fromString` understands the exponent forms
 * (`1e-7`, `1e+21`) that `String` produces for very small and very large numbers.
 */
export const decimal = (n: number): BigDecimal.BigDecimal => {
  // JSON cannot carry NaN or Infinity, so one here is a programming error, not bad input.
  if (!Number.isFinite(n)) throw new RangeError(`an amount must be a finite number, got ${n}`)
  return Option.getOrThrow(BigDecimal.fromString(String(n)))
}

/** The amount a decimal is, as plain text (`BigDecimal.format` writes large and small ones with an exponent). */
export const fromDecimal = (d: BigDecimal.BigDecimal): Amount => {
  const { value, scale } = BigDecimal.normalize(d)
  if (scale <= 0) return (value * 10n ** BigInt(-scale)).toString() as Amount
  const digits = (value < 0n ? -value : value).toString().padStart(scale + 1, "0")
  return `${value < 0n ? "-" : ""}${digits.slice(0, -scale)}.${digits.slice(-scale)}` as Amount
}

export const toDecimal = (amount: Amount): BigDecimal.BigDecimal => BigDecimal.unsafeFromString(amount)

/** The amount a JSON number was written as. */
export const ofNumber = (n: number): Amount => fromDecimal(decimal(n))

/**
 * The amount plain decimal text (`"12.50"`, as a `numeric` column gives it) is, or undefined for anything
 * else, an exponent included: `1e999999999` would be a billion digits.
 */
export const ofText = (text: string): Amount | undefined => {
  // A column keeps the scale it was written with, and the kernel writes canonical text: most reads are that.
  if (CANONICAL.test(text)) return text as Amount
  if (!/^[+-]?\d+(\.\d+)?$/.test(text)) return undefined
  return fromDecimal(BigDecimal.unsafeFromString(text))
}

/**
 * The JSON number an amount is rendered as: the double nearest the decimal, whose shortest text is the
 * decimal again for up to 15 significant digits (every amount a request can carry; a larger sum is the
 * nearest double, which is all a JSON reader keeps of it anyway).
 */
export const toNumber = (amount: Amount): number => Number(amount)

/** Back to a JSON number, for a decimal that is not an amount (a rate, a percentage). */
export const toJson = (d: BigDecimal.BigDecimal): number => Number(BigDecimal.format(d))

/**
 * A money field: `wire` is the JSON number it is written as (with the request's bounds), decoded into the
 * `Amount` a record carries and encoded back when a response is rendered (`Wire.encoder`). The schema's
 * JSON Schema is the number's (`Wire.asWritten`), in requests and responses alike.
 */
export const amount = <S extends z.ZodNumber>(wire: S) =>
  z.codec(wire, AmountText, { decode: ofNumber, encode: (text) => toNumber(text as Amount) as z.output<S> })

/** An amount in a record or a response: any JSON number. */
export const Amount = amount(z.number())

export const ZERO: Amount = "0" as Amount

/** How many decimals an amount has (`"12.5"`: 1, `"100"`: 0). */
export const decimalsOf = (amount: Amount): number => {
  const point = amount.indexOf(".")
  return point === -1 ? 0 : amount.length - point - 1
}
