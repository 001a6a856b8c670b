/** The retention job on every store: thirty days of events are kept, older ones go. */
import { Access, Contacts, Events, Kernel } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Built, build } from "../support/ports.js"
import { storages } from "../support/storages.js"

const DAY = 86_400_000

for (const storage of storages) {
  describe(`event retention [${storage.name}]`, () => {
    let kernel: Built<Access.Access | Contacts.Contacts | Events.Events> | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports)))
    })
    afterAll(async () => kernel?.close())

    it("purges events older than thirty days and keeps the rest", async () => {
      const names = await kernel!.run(
        Effect.gen(function* () {
          const access = yield* Access.Access
          const contacts = yield* Contacts.Contacts
          const events = yield* Events.Events
          const organisation = yield* access.createOrganisation({ name: "Retention" })
          yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
          yield* contacts.create(organisation, { first_name: "old" }, { keyId: null })
          yield* TestClock.adjust(DAY)
          yield* contacts.create(organisation, { first_name: "kept" }, { keyId: null })
          yield* TestClock.adjust(30 * DAY - 1000)
          const purged = yield* events.purge
          expect(purged).toBe(1)
          const page = yield* events.poll(organisation.id, { limit: 100 })
          return page.data.map((event) => event.data.first_name)
        }).pipe(Effect.provide(TestContext.TestContext))
      )
      expect(names).toEqual(["kept"])
    })
  })
}
