import { readFileSync } from "node:fs"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { type PublishedRate, parseCnb, parseEcb } from "../src/Invoicing/ExchangeRateFormats.js"

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/rates/${name}`, import.meta.url), "utf8")

const rates = (parsed: Either.Either<ReadonlyArray<PublishedRate>, string>): ReadonlyArray<PublishedRate> =>
  Either.getOrElse(parsed, (message) => {
    throw new Error(`expected rates, got: ${message}`)
  })

const refusal = (parsed: Either.Either<ReadonlyArray<PublishedRate>, string>): string =>
  Either.match(parsed, {
    onLeft: (message) => message,
    onRight: (rs) => {
      throw new Error(`expected a refusal, got ${rs.length} rates`)
    }
  })

const czk = (date: string, from: string, rate: string): PublishedRate => ({ date, from, to: "CZK", rate })
const eur = (date: string, to: string, rate: string): PublishedRate => ({ date, from: "EUR", to, rate })

describe("parseCnb", () => {
  it("reads the daily fixing, dividing by the amount the rate is quoted for", () => {
    const d = "2026-11-23"
    expect(rates(parseCnb(fixture("cnb-daily.txt")))).toEqual([
      czk(d, "AUD", "15.128"),
      czk(d, "EUR", "24.335"),
      czk(d, "IDR", "0.001472"),
      czk(d, "JPY", "0.15432"),
      czk(d, "HUF", "0.06118"),
      czk(d, "PLN", "5.734"),
      czk(d, "CHF", "25.907"),
      czk(d, "USD", "23.081"),
      czk(d, "GBP", "28.874")
    ])
  })

  it("divides a rate per 100 units exactly, without rounding", () => {
    const text = "23.11.2026 #226\nzemě|měna|množství|kód|kurz\nJaponsko|jen|100|JPY|15,432\n"
    expect(rates(parseCnb(text))).toEqual([czk("2026-11-23", "JPY", "0.15432")])
    const awkward = "23.11.2026 #226\nzemě|měna|množství|kód|kurz\nX|x|8|XXX|1,001\n"
    expect(rates(parseCnb(awkward))).toEqual([czk("2026-11-23", "XXX", "0.125125")])
  })

  it("reads the English variant, CRLF line ends and no trailing newline", () => {
    const text =
      "23 Nov 2026 #226\r\nCountry|Currency|Amount|Code|Rate\r\nEMU|euro|1|EUR|24.335\r\nJapan|yen|100|JPY|15.432"
    expect(rates(parseCnb(text))).toEqual([czk("2026-11-23", "EUR", "24.335"), czk("2026-11-23", "JPY", "0.15432")])
  })

  it("reads several daily blocks one after another", () => {
    const day = (date: string, eurRate: string) =>
      `${date} #1\nzemě|měna|množství|kód|kurz\nEMU|euro|1|EUR|${eurRate}\n`
    const text = `\uFEFF${day("20.11.2026", "24,401")}\n${day("23.11.2026", "24,335")}`
    expect(rates(parseCnb(text))).toEqual([czk("2026-11-20", "EUR", "24.401"), czk("2026-11-23", "EUR", "24.335")])
  })

  it("reads the yearly file, whose header repeats when the currencies change", () => {
    const text = [
      "Datum|1 EUR|100 JPY|1 USD",
      "02.01.2026|24,950|15,101|23,220",
      "05.01.2026|24,940||23,250",
      "Datum|1 EUR|100 JPY|1000 IDR",
      "06.01.2026|24,930|15,090|1,452"
    ].join("\n")
    expect(rates(parseCnb(text))).toEqual([
      czk("2026-01-02", "EUR", "24.95"),
      czk("2026-01-02", "JPY", "0.15101"),
      czk("2026-01-02", "USD", "23.22"),
      czk("2026-01-05", "EUR", "24.94"),
      czk("2026-01-05", "USD", "23.25"),
      czk("2026-01-06", "EUR", "24.93"),
      czk("2026-01-06", "JPY", "0.1509"),
      czk("2026-01-06", "IDR", "0.001452")
    ])
  })

  it("refuses garbage with a message naming the line", () => {
    expect(refusal(parseCnb(""))).toMatch(/empty/)
    expect(refusal(parseCnb("<html><body>Service unavailable</body></html>"))).toMatch(/line 1/)
    expect(refusal(parseCnb("23.11.2026 #226\nzemě|měna|množství|kód|kurz\n"))).toMatch(/no rates/)
    expect(refusal(parseCnb("31.11.2026 #226\nzemě|měna|množství|kód|kurz\nEMU|euro|1|EUR|24,335"))).toMatch(
      /line 1: not a fixing date/
    )
    expect(refusal(parseCnb("23.11.2026 #226\nEMU|euro|1|EUR|24,335"))).toMatch(/line 2: expected the header/)
    expect(refusal(parseCnb("23.11.2026 #226\nzemě|měna|množství|kód|kurz\nEMU|euro|1|EUR|24.335.1"))).toMatch(
      /line 3: rate "24.335.1"/
    )
    expect(refusal(parseCnb("23.11.2026 #226\nzemě|měna|množství|kód|kurz\nEMU|euro|1|EUR|"))).toMatch(
      /line 3: rate ""/
    )
    expect(refusal(parseCnb("23.11.2026 #226\nzemě|měna|množství|kód|kurz\nEMU|euro|0|EUR|24,335"))).toMatch(/amount/)
    expect(refusal(parseCnb("23.11.2026 #226\nzemě|měna|množství|kód|kurz\nX|x|3|XXX|1,000"))).toMatch(/per 3 units/)
    expect(refusal(parseCnb("23.11.2026 #226\nzemě|měna|množství|kód|kurz\nEMU|euro|1|EUR"))).toMatch(/line 3/)
  })
})

describe("parseEcb", () => {
  it("reads the daily eurofxref.csv", () => {
    const d = "2026-11-20"
    expect(rates(parseEcb(fixture("ecb-daily.csv")))).toEqual([
      eur(d, "USD", "1.0543"),
      eur(d, "JPY", "162.5"),
      eur(d, "BGN", "1.9558"),
      eur(d, "CZK", "24.335"),
      eur(d, "DKK", "7.4571"),
      eur(d, "GBP", "0.8428"),
      eur(d, "HUF", "397.78"),
      eur(d, "PLN", "4.244"),
      eur(d, "RON", "4.9765"),
      eur(d, "SEK", "11.412"),
      eur(d, "CHF", "0.9393"),
      eur(d, "ISK", "149.9"),
      eur(d, "NOK", "11.8135"),
      eur(d, "TRY", "44.215"),
      eur(d, "AUD", "1.6108")
    ])
  })

  it("reads the historical eurofxref-hist.csv, skipping N/A and empty values", () => {
    const parsed = rates(parseEcb(fixture("ecb-hist.csv")))
    expect(parsed.filter((r) => r.date === "2026-11-19")).toEqual([
      eur("2026-11-19", "USD", "1.0518"),
      eur("2026-11-19", "JPY", "161.98"),
      eur("2026-11-19", "BGN", "1.9558"),
      eur("2026-11-19", "CZK", "24.351"),
      eur("2026-11-19", "GBP", "0.84115")
    ])
    expect(parsed.some((r) => r.to === "CYP")).toBe(false)
    expect(parsed.find((r) => r.date === "2026-11-18" && r.to === "JPY")).toBeUndefined()
    expect(parsed.filter((r) => r.to === "CZK").map((r) => [r.date, r.rate])).toEqual([
      ["2026-11-20", "24.335"],
      ["2026-11-19", "24.351"],
      ["2026-11-18", "24.362"],
      ["2026-11-17", "24.378"]
    ])
    expect(parsed).toHaveLength(4 * 6 - 2)
  })

  it("tolerates CRLF and a missing trailing comma", () => {
    expect(rates(parseEcb("Date,USD,CZK\r\n2026-11-20,1.0543,24.335\r\n"))).toEqual([
      eur("2026-11-20", "USD", "1.0543"),
      eur("2026-11-20", "CZK", "24.335")
    ])
  })

  it("refuses garbage with a message naming the line", () => {
    expect(refusal(parseEcb(""))).toMatch(/empty/)
    expect(refusal(parseEcb("<html>Not found</html>"))).toMatch(/line 1: expected a header/)
    expect(refusal(parseEcb("Date, USD, \n"))).toMatch(/no rates/)
    expect(refusal(parseEcb("Date, USD, \n20 Novembre 2026, 1.0543,"))).toMatch(/line 2: expected a date/)
    expect(refusal(parseEcb("Date, USD, \n20 November 2026, 1,0543"))).toMatch(/line 2: more values/)
    expect(refusal(parseEcb("Date, USD, \n20 November 2026, -1.0543"))).toMatch(/USD value "-1.0543"/)
    expect(refusal(parseEcb("Date, USD, \n20 November 2026, 0"))).toMatch(/USD value "0"/)
    expect(refusal(parseEcb("Date, USD, \n20 November 2026, 1e3"))).toMatch(/USD value "1e3"/)
    expect(refusal(parseEcb("Date, usd dollars\n20 November 2026, 1.05"))).toMatch(/not a currency code/)
    expect(refusal(parseCnb(fixture("ecb-daily.csv")))).toMatch(/line 1/)
    expect(refusal(parseEcb(fixture("cnb-daily.txt")))).toMatch(/line 1/)
  })
})
