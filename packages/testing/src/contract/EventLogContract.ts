/**
 * The event log (`EventLog`): increasing decimal ids store-wide, a cursor that walks every event
 * once, a name filter, one organisation at a time, and purging that never reuses an id.
 */
import { Events } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { allEvents, at, expectIncreasing, ids, organisationId, type StoragePorts, seed } from "./Fixtures.js"

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test } = contractCases(makeLayer, options)

  describe(`EventLog storage contract: ${name}`, () => {
    test(
      "append assigns increasing decimal ids in the given order and keeps event, data and time",
      Effect.gen(function* () {
        const { a } = yield* seed
        const log = yield* Events.EventLog
        const batch: ReadonlyArray<Events.NewEvent> = [
          { event: "contact.created", data: { id: "1", nested: { list: [1, 2], flag: false, none: null } } },
          { event: "contact.updated", data: { id: "1", first_name: "Ann" } },
          { event: "deal.won", data: {} }
        ]
        yield* log.append(a.id, batch, at(42))
        yield* log.append(a.id, [], at(43))
        const events = yield* allEvents(a.id)
        expect(events.map(({ data, event }) => ({ event, data }))).toEqual(batch)
        expect(events.map((event) => event.created_at)).toEqual([at(42), at(42), at(42)])
        expectIncreasing(ids(events))
      })
    )

    test(
      "ids increase store-wide, across organisations and appends",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const log = yield* Events.EventLog
        yield* log.append(a.id, [{ event: "contact.created", data: { n: 1 } }], at(0))
        yield* log.append(b.id, [{ event: "contact.created", data: { n: 2 } }], at(1))
        yield* log.append(a.id, [{ event: "contact.created", data: { n: 3 } }], at(2))
        const [a1, a2] = ids(yield* allEvents(a.id))
        const [b1] = ids(yield* allEvents(b.id))
        expectIncreasing([a1!, b1!, a2!])
      })
    )

    test(
      "after returns only events past the cursor, oldest first, at most limit + 1; the cursor walks each once",
      Effect.gen(function* () {
        const { a } = yield* seed
        const log = yield* Events.EventLog
        yield* log.append(
          a.id,
          [1, 2, 3].map((n) => ({ event: "contact.created", data: { n } })),
          at(0)
        )
        yield* log.append(
          a.id,
          [4, 5].map((n) => ({ event: "contact.created", data: { n } })),
          at(1)
        )
        yield* log.append(
          a.id,
          [6, 7].map((n) => ({ event: "contact.created", data: { n } })),
          at(2)
        )
        const all = yield* allEvents(a.id)
        expect(all.map((event) => event.data.n)).toEqual([1, 2, 3, 4, 5, 6, 7])
        const after = (since: bigint, limit: number) => log.after(a.id, { since, event: undefined, limit })

        expect(ids(yield* after(0n, 3))).toEqual(ids(all.slice(0, 4)))
        expect(ids(yield* after(BigInt(all[2]!.id), 3))).toEqual(ids(all.slice(3, 7)))
        expect(ids(yield* after(BigInt(all[4]!.id), 3))).toEqual(ids(all.slice(5)))
        expect(yield* after(BigInt(all[6]!.id), 3)).toEqual([])
        expect(yield* after(BigInt(all[6]!.id) + 1000n, 3)).toEqual([])

        const walked: Array<string> = []
        let cursor = 0n
        for (;;) {
          const rows = yield* after(cursor, 2)
          const data = rows.slice(0, 2)
          walked.push(...ids(data))
          if (data.length > 0) cursor = BigInt(data[data.length - 1]!.id)
          if (rows.length <= 2) break
        }
        expect(walked).toEqual(ids(all))
      })
    )

    test(
      "the event filter keeps one name, and the limit counts only matching events",
      Effect.gen(function* () {
        const { a } = yield* seed
        const log = yield* Events.EventLog
        const names: ReadonlyArray<Events.EventName> = [
          "contact.created",
          "company.created",
          "contact.created",
          "company.created",
          "contact.created",
          "company.created"
        ]
        yield* log.append(
          a.id,
          names.map((event, n) => ({ event, data: { n } })),
          at(0)
        )
        const companies = (since: bigint, limit: number) => log.after(a.id, { since, event: "company.created", limit })
        const matching = yield* companies(0n, 2)
        expect(matching.map((event) => event.data.n)).toEqual([1, 3, 5])
        expect(matching.every((event) => event.event === "company.created")).toBe(true)
        expect((yield* companies(BigInt(matching[1]!.id), 2)).map((event) => event.data.n)).toEqual([5])
        expect(yield* log.after(a.id, { since: 0n, event: "deal.won", limit: 10 })).toEqual([])
      })
    )

    test(
      "each organisation sees only its own events",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const log = yield* Events.EventLog
        yield* log.append(a.id, [{ event: "contact.created", data: { org: "a" } }], at(0))
        yield* log.append(
          b.id,
          [
            { event: "contact.created", data: { org: "b" } },
            { event: "company.created", data: { org: "b" } }
          ],
          at(1)
        )
        yield* log.append(a.id, [{ event: "company.created", data: { org: "a" } }], at(2))
        expect((yield* allEvents(a.id)).map((event) => event.data.org)).toEqual(["a", "a"])
        expect((yield* allEvents(b.id)).map((event) => event.data.org)).toEqual(["b", "b"])
        expect(yield* allEvents(organisationId())).toEqual([])
        expect(
          (yield* log.after(a.id, { since: 0n, event: "company.created", limit: 10 })).map((event) => event.data.org)
        ).toEqual(["a"])
      })
    )

    test(
      "purgeBefore deletes strictly older events of every organisation and returns how many",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const log = yield* Events.EventLog
        yield* log.append(a.id, [{ event: "contact.created", data: { n: "a0" } }], at(0))
        yield* log.append(b.id, [{ event: "contact.created", data: { n: "b5" } }], at(5))
        yield* log.append(a.id, [{ event: "contact.created", data: { n: "a10" } }], at(10))
        yield* log.append(a.id, [{ event: "contact.created", data: { n: "a20" } }], at(20))
        yield* log.append(b.id, [{ event: "contact.created", data: { n: "b20" } }], at(20))
        const before = ids(yield* allEvents(a.id)).concat(ids(yield* allEvents(b.id)))

        expect(yield* log.purgeBefore(at(10))).toBe(2)
        expect((yield* allEvents(a.id)).map((event) => event.data.n)).toEqual(["a10", "a20"])
        expect((yield* allEvents(b.id)).map((event) => event.data.n)).toEqual(["b20"])
        expect(yield* log.purgeBefore(at(10))).toBe(0)

        // Purging never lets an id be handed out again.
        yield* log.append(a.id, [{ event: "contact.created", data: { n: "a30" } }], at(30))
        const newest = (yield* allEvents(a.id)).at(-1)!
        for (const id of before) expect(BigInt(newest.id) > BigInt(id)).toBe(true)
      })
    )
  })
}
