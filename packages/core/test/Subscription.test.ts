import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { EVENT_NAMES } from "../src/Events/EventCatalogue.js"
import { receives } from "../src/Webhooks/Subscription.js"

const subscription = fc.record({
  active: fc.boolean(),
  events: fc.uniqueArray(fc.constantFrom(...EVENT_NAMES), { minLength: 1, maxLength: 6 })
})

describe("the outbox rule", () => {
  it("delivers to an active hook of a live key exactly the events it named, and to no other hook", () => {
    fc.assert(
      fc.property(subscription, fc.boolean(), (hook, keyLive) => {
        const received = EVENT_NAMES.filter((event) => receives(hook, keyLive, event))
        expect(received).toEqual(hook.active && keyLive ? EVENT_NAMES.filter((e) => hook.events.includes(e)) : [])
      })
    )
  })

  it("never takes a delivery away from a hook that subscribes to more", () => {
    fc.assert(
      fc.property(
        subscription,
        fc.constantFrom(...EVENT_NAMES),
        fc.constantFrom(...EVENT_NAMES),
        (hook, more, event) => {
          if (receives(hook, true, event))
            expect(receives({ ...hook, events: [...hook.events, more] }, true, event)).toBe(true)
        }
      )
    )
  })
})
