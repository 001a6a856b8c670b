import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decode, encode, ofOutcome, toRun } from "../src/StoredResponse.js"

const response = fc.record({
  status: fc.integer({ min: 100, max: 599 }),
  headers: fc.dictionary(fc.string(), fc.string()),
  body: fc.string({ unit: "binary" })
})

describe("a response kept for a retry", () => {
  it("decodes to what was encoded, whatever the headers and body hold", () => {
    fc.assert(
      fc.property(response, (r) => {
        expect(decode(encode(r))).toEqual(r)
      })
    )
  })

  it("decodes the rows storage-pg's migration 0022 encoded (PostgreSQL's jsonb text for the headers)", () => {
    const migrated = '201\n{"location": "/api/v1/contacts/1", "content-type": "application/json"}\n{"id":"1"}\n'
    expect(decode(migrated)).toEqual({
      status: 201,
      headers: { location: "/api/v1/contacts/1", "content-type": "application/json" },
      body: '{"id":"1"}\n'
    })
  })

  it("keeps what a retry must see again, rolls back refusals, and replays the first answer", () => {
    const created = { status: 201, headers: { location: "/x" }, body: "{}" }
    expect(toRun(created)).toEqual({ value: created, refused: false, payload: encode(created) })
    expect(toRun({ ...created, status: 422 })).toMatchObject({ refused: true, payload: expect.any(String) })
    for (const status of [500, 503, 429, 401]) expect(toRun({ ...created, status }).payload).toBeUndefined()
    expect(ofOutcome({ replayed: true, payload: encode(created) })).toEqual(created)
    expect(ofOutcome({ replayed: false, value: created })).toBe(created)
  })
})
