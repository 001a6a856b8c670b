import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { EVENT_NAMES } from "../src/Events/EventCatalogue.js"
import type { EventEnvelope, EventPage } from "../src/Events/EventSchemas.js"
import { envelopeOfText, renderEventPage } from "../src/Events/EventText.js"

// Payloads as a store holds them: whatever JSON.stringify made of a JSON object.
const payload = fc
  .dictionary(fc.string(), fc.jsonValue())
  .map((data) => JSON.parse(JSON.stringify(data)) as Record<string, unknown>)

const envelope = fc.record({
  id: fc.bigInt({ min: 1n, max: 9_223_372_036_854_775_807n }).map(String),
  event: fc.constantFrom(...EVENT_NAMES),
  data: payload,
  created_at: fc.date({ noInvalidDate: true }).map((date) => date.toISOString())
})

const stored = (plain: EventEnvelope): EventEnvelope =>
  envelopeOfText(plain.id, plain.event, JSON.stringify(plain.data), plain.created_at)

const page = (data: Array<EventEnvelope>, hasMore: boolean): EventPage => ({
  data,
  next_cursor: data.at(-1)?.id ?? "0",
  has_more: hasMore
})

describe("events as JSON text", () => {
  it("renders a page exactly as JSON.stringify does, whether its payloads are stored text or objects", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(envelope, fc.boolean()), { maxLength: 8 }), fc.boolean(), (items, hasMore) => {
        const plain = page(
          items.map(([e]) => e),
          hasMore
        )
        const mixed = page(
          items.map(([e, fromText]) => (fromText ? stored(e) : e)),
          hasMore
        )
        expect(renderEventPage(plain)).toBe(JSON.stringify(plain))
        expect(renderEventPage(mixed)).toBe(JSON.stringify(plain))
        expect(JSON.stringify(mixed)).toBe(JSON.stringify(plain))
      })
    )
  })

  it("sends a stored payload's text as it is, without parsing it", () => {
    // Spaces a JSON.stringify would drop show the text was not parsed and rendered again.
    const e = envelopeOfText("7", "contact.created", '{"id" : "c1"}', "2026-11-27T10:00:00.000Z")
    expect(renderEventPage({ data: [e], next_cursor: "7", has_more: false })).toBe(
      '{"data":[{"id":"7","event":"contact.created","data":{"id" : "c1"},"created_at":"2026-11-27T10:00:00.000Z"}],"next_cursor":"7","has_more":false}'
    )
  })

  it("is an ordinary envelope to every other reader: keys, spread, clone, equality", () => {
    fc.assert(
      fc.property(envelope, (plain) => {
        const e = stored(plain)
        expect(Object.keys(e)).toEqual(["id", "event", "data", "created_at"])
        expect(e).toEqual(plain)
        expect({ ...e }).toEqual(plain)
        expect(structuredClone(e)).toEqual(plain)
        expect(e.data).toBe(e.data)
      })
    )
  })
})
