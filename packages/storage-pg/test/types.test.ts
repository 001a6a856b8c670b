import { expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import * as Pg from "pg"
import { pgliteTemplate } from "../../../test/support/storages.js"
import { iso } from "../src/internal/storedValues.js"
import { storeTypes, timestamptz } from "../src/internal/types.js"
import * as PgliteClient from "../src/PgliteClient.js"

const pgDate = (text: string) => Pg.types.getTypeParser(1184, "text")(text) as Date

/** How PostgreSQL writes a timestamptz in UTC: microseconds, trailing zeros of the fraction dropped. */
const pgText = (instant: Date, micros: number): string => {
  const iso = instant.toISOString()
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, "0")}`.replace(/0+$/, "")
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction === "" ? "" : `.${fraction}`}+00`
}

const instants = fc.date({
  min: new Date("0001-01-01T00:00:00.000Z"),
  max: new Date("9999-12-31T23:59:59.999Z"),
  noInvalidDate: true
})

it("reads a UTC timestamptz into exactly the text Date.toISOString() gives for pg's Date", () =>
  fc.assert(
    fc.property(instants, fc.integer({ min: 0, max: 999 }), (instant, micros) => {
      const text = pgText(instant, micros)
      expect(timestamptz(text)).toBe(pgDate(text).toISOString())
    })
  ))

it("leaves every other form to pg's parser", () => {
  for (const text of ["2024-01-02 03:04:05.123+02", "2024-01-02 03:04:05+05:30", "0044-03-15 12:00:00+00 BC"]) {
    expect(timestamptz(text)).toStrictEqual(pgDate(text))
  }
  expect(timestamptz("infinity")).toBe(Number.POSITIVE_INFINITY)
  expect(storeTypes.getTypeParser(20, "text")("9007199254740993")).toBe("9007199254740993")
})

it("a record's timestamp is the same ISO text whichever form the driver gave", () => {
  const expected = "2024-01-02T01:04:05.120Z"
  for (const value of [
    new Date(expected),
    expected,
    "2024-01-02 01:04:05.12+00",
    "2024-01-02 03:04:05.12+02",
    "2024-01-02T03:04:05.12+02:00"
  ]) {
    expect(iso(value)).toBe(expected)
  }
})

it.scoped("PGlite read with the store's types gives the same text as PostgreSQL's Date would", () =>
  Effect.gen(function* () {
    // The run's migrated data directory: loading it costs a third of a new one's initdb.
    const client = yield* PgliteClient.make({ types: storeTypes, loadDataDir: yield* Effect.promise(pgliteTemplate) })
    const rows = yield* client<{ a: unknown; b: unknown; c: unknown }>`SELECT
      '2024-01-02 03:04:05.123456+02'::timestamptz AS a,
      '2024-01-02 03:04:05+00'::timestamptz AS b,
      '2024-01-02 03:04:05.1'::timestamptz AS c`
    expect(rows).toStrictEqual([
      { a: "2024-01-02T01:04:05.123Z", b: "2024-01-02T03:04:05.000Z", c: "2024-01-02T03:04:05.100Z" }
    ])
  })
)
