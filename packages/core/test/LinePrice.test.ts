import * as BigDecimal from "effect/BigDecimal"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type Amount,
  AmountText,
  decimal,
  decimalsOf,
  fromDecimal,
  ofNumber,
  ofText,
  toDecimal,
  toJson,
  toNumber
} from "../src/Money/Amount.js"
import { minorUnits, roundMinor } from "../src/Money/Currency.js"
import { type LineInput, priceDocument, priceLine } from "../src/Pricing/LinePrice.js"

/** The amount a JSON number was written as, as a request decodes it. */
const a = (n: number): Amount => ofNumber(n)
/** The exact sum of amounts, as text. */
const sumOf = (amounts: ReadonlyArray<Amount>): Amount => fromDecimal(BigDecimal.sumAll(amounts.map(toDecimal)))
/** The negated amount; -0 and 0 are the same amount, "0". */
const neg = (amount: Amount): Amount => fromDecimal(BigDecimal.negate(toDecimal(amount)))
const isCanonical = (text: string): boolean => AmountText.safeParse(text).success

describe("Amount", () => {
  it("reads a JSON number as the decimal it was written as, exponent forms included", () => {
    expect(BigDecimal.format(decimal(0.1))).toBe("0.1")
    expect(BigDecimal.format(decimal(1e-7))).toBe("0.0000001")
    expect(BigDecimal.equals(decimal(1e21), BigDecimal.fromBigInt(10n ** 21n))).toBe(true)
    expect(BigDecimal.format(decimal(-2.5e-8))).toBe("-0.000000025")
    expect(BigDecimal.format(BigDecimal.sum(decimal(0.1), decimal(0.2)))).toBe("0.3")
  })

  it("refuses NaN and Infinity, which JSON cannot carry", () => {
    expect(() => decimal(Number.NaN)).toThrow(RangeError)
    expect(() => decimal(Number.POSITIVE_INFINITY)).toThrow(RangeError)
    expect(() => ofNumber(Number.NEGATIVE_INFINITY)).toThrow(RangeError)
  })

  it("gives back the same JSON number it read", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(toJson(decimal(n))).toBe(n === 0 ? 0 : n)
      })
    )
  })

  it("rounds to the currency's minor unit half away from zero", () => {
    const r = (n: number, currency: string) => fromDecimal(roundMinor(decimal(n), currency))
    expect(r(0.125, "EUR")).toBe("0.13")
    expect(r(-0.125, "EUR")).toBe("-0.13")
    expect(r(0.124999, "EUR")).toBe("0.12")
    expect(r(2.5, "JPY")).toBe("3")
    expect(r(-2.5, "JPY")).toBe("-3")
    expect(r(1.0005, "BHD")).toBe("1.001")
    expect(r(1.00005, "CLF")).toBe("1.0001")
    expect(r(-0.004, "EUR")).toBe("0")
  })

  it("writes an amount as plain decimal text: no exponent, no trailing zeros, 0 for zero", () => {
    expect(ofNumber(1e21)).toBe("1000000000000000000000")
    expect(ofNumber(1e-7)).toBe("0.0000001")
    expect(ofNumber(-2.5e-8)).toBe("-0.000000025")
    expect(ofNumber(-0)).toBe("0")
    expect(ofNumber(0)).toBe("0")
    expect(ofNumber(12.5)).toBe("12.5")
    expect(ofNumber(100)).toBe("100")
    expect(ofNumber(-0.07)).toBe("-0.07")
    expect(ofNumber(0.1)).toBe("0.1")
    expect(fromDecimal(BigDecimal.make(12500n, 3))).toBe("12.5")
    expect(fromDecimal(BigDecimal.make(1200n, 0))).toBe("1200")
    expect(fromDecimal(BigDecimal.make(-12n, -2))).toBe("-1200")
    expect(fromDecimal(BigDecimal.make(1n, -21))).toBe("1000000000000000000000")
    expect(fromDecimal(BigDecimal.make(1n, 7))).toBe("0.0000001")
    expect(fromDecimal(BigDecimal.make(-7n, 2))).toBe("-0.07")
    expect(fromDecimal(BigDecimal.make(-700n, 4))).toBe("-0.07")
    expect(fromDecimal(BigDecimal.make(0n, 5))).toBe("0")
    expect(fromDecimal(BigDecimal.make(0n, -5))).toBe("0")
  })

  it("reads decimal text, as a numeric column gives it, and nothing else", () => {
    expect(ofText("12.50")).toBe("12.5")
    expect(ofText("-0.070")).toBe("-0.07")
    expect(ofText("0.000")).toBe("0")
    expect(ofText("-0")).toBe("0")
    expect(ofText("00012.3400")).toBe("12.34")
    expect(ofText("1000")).toBe("1000")
    for (const bad of ["abc", "", " ", ".", "-", "1,5", "1.2.3", " 1", "1 ", "NaN", "Infinity", "0x10", "1e", "e5"]) {
      expect(ofText(bad)).toBeUndefined()
    }
    // No exponent: a numeric column never writes one, and `1e999999999` would be a billion digits.
    for (const bad of ["1e-7", "1e999999999", "12.", ".5", "+.5e-2"]) {
      expect(ofText(bad)).toBeUndefined()
    }
  })

  it("gives back the same JSON number an amount was read from (-0 reads as 0)", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const amount = ofNumber(n)
        expect(isCanonical(amount)).toBe(true)
        expect(toNumber(amount)).toBe(n === 0 ? 0 : n)
      })
    )
  })

  it("keeps every digit of a decimal through its text", () => {
    const decimals = fc
      .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: -30, max: 30 }))
      .map(([value, scale]) => BigDecimal.make(value, scale))
    fc.assert(
      fc.property(decimals, (d) => {
        const amount = fromDecimal(d)
        expect(isCanonical(amount)).toBe(true)
        expect(BigDecimal.equals(toDecimal(amount), d)).toBe(true)
        expect(fromDecimal(toDecimal(amount))).toBe(amount)
        expect(ofText(amount)).toBe(amount)
      })
    )
  })

  it("AmountText accepts exactly the canonical forms", () => {
    for (const good of ["0", "1", "-1", "10", "100", "0.5", "-0.07", "1234.5", "1000000000000000000000", "0.0000001"]) {
      expect(isCanonical(good)).toBe(true)
    }
    for (const bad of [
      "-0",
      "00",
      "01",
      "-01",
      "1.0",
      "1.50",
      "0.0",
      "-0.0",
      "00.5",
      ".5",
      "5.",
      "+1",
      "1e3",
      "1E-7",
      " 1",
      "1 ",
      "",
      "-",
      "abc",
      "1,5",
      "NaN",
      "Infinity"
    ]) {
      expect(isCanonical(bad)).toBe(false)
    }
    // Canonical is what reading the text again would write: any decimal-looking text, or any text at all.
    const decimalLike = fc.stringMatching(/^[+-]?\d{0,4}\.?\d{0,4}([eE][+-]?\d{1,2})?$/)
    fc.assert(
      fc.property(fc.oneof(decimalLike, fc.string()), (text) => {
        expect(isCanonical(text)).toBe(ofText(text) === text)
      })
    )
  })
})

describe("priceLine", () => {
  it("prices 3 × 33.33 at 21 % in EUR", () => {
    expect(priceLine({ quantity: 3, unit_price: a(33.33), vat_rate: 21 }, "EUR")).toEqual({
      net: "99.99",
      vat: "21",
      gross: "120.99"
    })
  })

  it("applies a discount before VAT", () => {
    expect(priceLine({ quantity: 1, unit_price: a(100), vat_rate: 21, discount_percent: 10 }, "EUR")).toEqual({
      net: "90",
      vat: "18.9",
      gross: "108.9"
    })
    expect(priceLine({ quantity: 2, unit_price: a(19.99), vat_rate: 21, discount_percent: 12.5 }, "EUR")).toEqual({
      net: "34.98", // 34.9825
      vat: "7.35", // 7.3458
      gross: "42.33"
    })
  })

  it("treats a null or absent discount as none", () => {
    const line = { quantity: 7, unit_price: a(1.11), vat_rate: 12 }
    expect(priceLine({ ...line, discount_percent: null }, "CZK")).toEqual(priceLine(line, "CZK"))
    expect(priceLine({ ...line, discount_percent: 0 }, "CZK")).toEqual(priceLine(line, "CZK"))
    expect(priceLine(line, "CZK")).toEqual({ net: "7.77", vat: "0.93", gross: "8.7" })
  })

  it("rounds JPY to whole yen and BHD to fils", () => {
    expect(priceLine({ quantity: 3, unit_price: a(333), vat_rate: 10 }, "JPY")).toEqual({
      net: "999",
      vat: "100",
      gross: "1099"
    })
    expect(priceLine({ quantity: 3, unit_price: a(0.5), vat_rate: 10 }, "JPY")).toEqual({
      net: "2",
      vat: "0",
      gross: "2"
    })
    expect(priceLine({ quantity: 2, unit_price: a(1.2345), vat_rate: 10 }, "BHD")).toEqual({
      net: "2.469",
      vat: "0.247",
      gross: "2.716"
    })
  })

  it("rounds a half away from zero for positive and negative lines", () => {
    // [quantity, unit price, VAT rate, net, vat, gross]; VAT of 0.50 at 21 % is 0.105.
    const cases = [
      [1, 0.125, 0, "0.13", "0", "0.13"],
      [-1, 0.125, 0, "-0.13", "0", "-0.13"],
      [1, 0.5, 21, "0.5", "0.11", "0.61"],
      [-1, 0.5, 21, "-0.5", "-0.11", "-0.61"]
    ] as const
    for (const [quantity, price, vat_rate, net, vat, gross] of cases) {
      expect(priceLine({ quantity, unit_price: a(price), vat_rate }, "EUR")).toEqual({ net, vat, gross })
    }
  })

  it("computes VAT from the rounded net, as the line shows it", () => {
    // 0.115 rounds to 0.12, whose VAT is 0.0252 -> 0.03; VAT on the unrounded 0.115 would be 0.02415 -> 0.02.
    expect(priceLine({ quantity: 1, unit_price: a(0.115), vat_rate: 21 }, "EUR")).toEqual({
      net: "0.12",
      vat: "0.03",
      gross: "0.15"
    })
  })

  it("prices fractional quantities and fractional VAT rates", () => {
    expect(priceLine({ quantity: 1.5, unit_price: a(0.07), vat_rate: 15.5 }, "EUR")).toEqual({
      net: "0.11", // 0.105
      vat: "0.02", // 0.01705
      gross: "0.13"
    })
  })

  it("keeps every digit of a price beyond what a double holds", () => {
    // Half a cent exactly, rounded up; the nearest doubles, 1.00499999999999989… and 1.01499999999999990…, round down.
    expect(priceLine({ quantity: 1, unit_price: a(1.005), vat_rate: 0 }, "EUR").net).toBe("1.01")
    expect(priceLine({ quantity: 7, unit_price: a(0.145), vat_rate: 0 }, "EUR").net).toBe("1.02")
    // More significant digits than a double has.
    expect(
      priceLine({ quantity: 1, unit_price: AmountText.parse("12345678901234567.89"), vat_rate: 0 }, "EUR")
    ).toEqual({
      net: "12345678901234567.89",
      vat: "0",
      gross: "12345678901234567.89"
    })
  })
})

describe("priceDocument", () => {
  it("sums decimals exactly: 0.1 + 0.2 is 0.3", () => {
    const doc = priceDocument(
      [
        { quantity: 1, unit_price: a(0.1), vat_rate: 0 },
        { quantity: 1, unit_price: a(0.2), vat_rate: 0 }
      ],
      "EUR"
    )
    expect(doc.subtotal).toBe("0.3")
    expect(doc.total).toBe("0.3")
    expect(toNumber(doc.total)).toBe(0.3)
  })

  it("sums the rounded lines, not the unrounded ones", () => {
    const doc = priceDocument(
      [
        { quantity: 1, unit_price: a(0.005), vat_rate: 0 },
        { quantity: 1, unit_price: a(0.005), vat_rate: 0 }
      ],
      "EUR"
    )
    expect(doc.subtotal).toBe("0.02")
  })

  it("keeps the line's own fields and adds its amounts", () => {
    const doc = priceDocument([{ name: "Widget", quantity: 2, unit_price: a(10), vat_rate: 21 }], "EUR")
    expect(doc.lines).toEqual([
      { name: "Widget", quantity: 2, unit_price: "10", vat_rate: 21, net: "20", vat: "4.2", gross: "24.2" }
    ])
  })

  it("summarises VAT per rate, highest rate first", () => {
    const doc = priceDocument(
      [
        { quantity: 1, unit_price: a(10), vat_rate: 12 },
        { quantity: 1, unit_price: a(100), vat_rate: 21 },
        { quantity: 1, unit_price: a(5), vat_rate: 0 },
        { quantity: 3, unit_price: a(33.33), vat_rate: 21 },
        { quantity: 1, unit_price: a(2), vat_rate: 15.5 }
      ],
      "EUR"
    )
    expect(doc.vat_summary).toEqual([
      { vat_rate: 21, net: "199.99", vat: "42", gross: "241.99" },
      { vat_rate: 15.5, net: "2", vat: "0.31", gross: "2.31" },
      { vat_rate: 12, net: "10", vat: "1.2", gross: "11.2" },
      { vat_rate: 0, net: "5", vat: "0", gross: "5" }
    ])
    expect(doc).toMatchObject({ subtotal: "216.99", vat_total: "43.51", total: "260.5" })
  })

  it("totals an empty document as 0", () => {
    expect(priceDocument([], "EUR")).toEqual({ lines: [], subtotal: "0", vat_total: "0", total: "0", vat_summary: [] })
  })
})

// ---- properties ------------------------------------------------------------------------------------------------

/** A line as the digits and scales it was written with, so the reference below can work in integers. */
interface Drawn {
  readonly q: bigint // quantity = q / 10^qs
  readonly qs: number
  readonly p: bigint // unit_price = p / 10^ps
  readonly ps: number
  readonly r: bigint // vat_rate = r / 10
  readonly d: bigint | null | undefined // discount_percent = d / 100
}

const at = (digits: bigint, scale: number): number => Number(`${digits}e-${scale}`)

const inputOf = (x: Drawn): LineInput => {
  // The price as a request carries it: a JSON number, decoded into an amount.
  const base = { quantity: at(x.q, x.qs), unit_price: a(at(x.p, x.ps)), vat_rate: at(x.r, 1) }
  if (x.d === undefined) return base
  return { ...base, discount_percent: x.d === null ? null : at(x.d, 2) }
}

// Bounded so that every amount, summed over a document, stays within 15 significant digits even with four
// decimals (CLF): beyond that a JSON number cannot carry it exactly, whatever the arithmetic.
const drawn: fc.Arbitrary<Drawn> = fc.record({
  q: fc.bigInt(-9999n, 9999n),
  qs: fc.integer({ min: 0, max: 3 }),
  p: fc.bigInt(-999_999n, 999_999n),
  ps: fc.integer({ min: 0, max: 4 }),
  r: fc.oneof(fc.constantFrom(0n, 100n, 120n, 150n, 155n, 210n), fc.bigInt(0n, 300n)),
  d: fc.oneof(fc.constant(undefined), fc.constant(null), fc.bigInt(0n, 10_000n), fc.constantFrom(0n, 1000n, 5000n))
})

const currency = fc.constantFrom("EUR", "CZK", "JPY", "BHD", "CLF")
const documentArb = fc.tuple(fc.array(drawn, { maxLength: 8 }), currency)

const pow10 = (n: number): bigint => 10n ** BigInt(n)

/** n / d rounded half away from zero, for d > 0. */
const roundDiv = (n: bigint, d: bigint): bigint => {
  const magnitude = ((n < 0n ? -n : n) * 2n + d) / (2n * d)
  return n < 0n ? -magnitude : magnitude
}

/** Independent of BigDecimal: the decision-page rules in integer minor units. */
const reference = (x: Drawn, cur: string) => {
  const m = minorUnits(cur)
  const discount = x.d ?? 0n
  const net = roundDiv(x.q * x.p * (10_000n - discount) * pow10(m), pow10(x.qs + x.ps + 4))
  const vat = roundDiv(net * x.r, 1000n)
  return { net, vat, gross: net + vat }
}

/** Independent of BigDecimal too: `minor` minor units as canonical decimal text ("-0.07", "12.5", "0"). */
const major = (minor: bigint, cur: string): string => {
  const scale = minorUnits(cur)
  const digits = (minor < 0n ? -minor : minor).toString().padStart(scale + 1, "0")
  const whole = digits.slice(0, digits.length - scale)
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "")
  return `${minor < 0n ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`
}

describe("priceDocument properties", () => {
  it("agrees with an integer reference computation in minor units", () => {
    fc.assert(
      fc.property(documentArb, ([xs, cur]) => {
        const doc = priceDocument(xs.map(inputOf), cur)
        const refs = xs.map((x) => reference(x, cur))
        refs.forEach((ref, i) => {
          expect(doc.lines[i]).toMatchObject({
            net: major(ref.net, cur),
            vat: major(ref.vat, cur),
            gross: major(ref.gross, cur)
          })
        })
        const sum = (pick: (r: (typeof refs)[number]) => bigint) => refs.reduce((acc, r) => acc + pick(r), 0n)
        expect(doc.subtotal).toBe(
          major(
            sum((r) => r.net),
            cur
          )
        )
        expect(doc.vat_total).toBe(
          major(
            sum((r) => r.vat),
            cur
          )
        )
        expect(doc.total).toBe(
          major(
            sum((r) => r.gross),
            cur
          )
        )

        const rates = [...new Set(xs.map((x) => x.r))].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))
        expect(doc.vat_summary).toEqual(
          rates.map((rate) => {
            const of = refs.filter((_, i) => xs[i]!.r === rate)
            const total = (pick: (r: (typeof refs)[number]) => bigint) => of.reduce((acc, r) => acc + pick(r), 0n)
            return {
              vat_rate: at(rate, 1),
              net: major(
                total((r) => r.net),
                cur
              ),
              vat: major(
                total((r) => r.vat),
                cur
              ),
              gross: major(
                total((r) => r.gross),
                cur
              )
            }
          })
        )
      })
    )
  })

  it("makes the totals exactly the sums of the lines and of the VAT summary", () => {
    fc.assert(
      fc.property(documentArb, ([xs, cur]) => {
        const doc = priceDocument(xs.map(inputOf), cur)
        for (const line of doc.lines) expect(line.gross).toBe(sumOf([line.net, line.vat]))
        expect(doc.subtotal).toBe(sumOf(doc.lines.map((l) => l.net)))
        expect(doc.vat_total).toBe(sumOf(doc.lines.map((l) => l.vat)))
        expect(doc.total).toBe(sumOf(doc.lines.map((l) => l.gross)))
        expect(doc.total).toBe(sumOf(doc.vat_summary.map((row) => row.gross)))
        expect(doc.subtotal).toBe(sumOf(doc.vat_summary.map((row) => row.net)))
        expect(doc.vat_total).toBe(sumOf(doc.vat_summary.map((row) => row.vat)))
      })
    )
  })

  it("never gives an amount more decimals than the currency's minor unit, and writes each canonically", () => {
    fc.assert(
      fc.property(documentArb, ([xs, cur]) => {
        const doc = priceDocument(xs.map(inputOf), cur)
        const amounts = [
          doc.subtotal,
          doc.vat_total,
          doc.total,
          ...doc.lines.flatMap((l) => [l.net, l.vat, l.gross]),
          ...doc.vat_summary.flatMap((row) => [row.net, row.vat, row.gross])
        ]
        for (const amount of amounts) {
          expect(decimalsOf(amount)).toBeLessThanOrEqual(minorUnits(cur))
          expect(isCanonical(amount)).toBe(true)
        }
      })
    )
  })

  it("does not depend on the order of the lines", () => {
    const shuffled = documentArb.chain(([xs, cur]) =>
      fc
        .shuffledSubarray(
          xs.map((_, i) => i),
          { minLength: xs.length, maxLength: xs.length }
        )
        .map((order) => [xs, order.map((i) => xs[i]!), cur] as const)
    )
    fc.assert(
      fc.property(shuffled, ([xs, reordered, cur]) => {
        const { lines: _a, ...original } = priceDocument(xs.map(inputOf), cur)
        const { lines: _b, ...permuted } = priceDocument(reordered.map(inputOf), cur)
        expect(permuted).toEqual(original)
      })
    )
  })

  it("prices a storno (every quantity negated) at exactly the negated amounts", () => {
    fc.assert(
      fc.property(documentArb, ([xs, cur]) => {
        const doc = priceDocument(xs.map(inputOf), cur)
        const storno = priceDocument(
          xs.map((x) => inputOf({ ...x, q: -x.q })),
          cur
        )
        expect(storno.subtotal).toBe(neg(doc.subtotal))
        expect(storno.vat_total).toBe(neg(doc.vat_total))
        expect(storno.total).toBe(neg(doc.total))
        storno.lines.forEach((line, i) => {
          expect([line.net, line.vat, line.gross]).toEqual([
            neg(doc.lines[i]!.net),
            neg(doc.lines[i]!.vat),
            neg(doc.lines[i]!.gross)
          ])
        })
      })
    )
  })
})
