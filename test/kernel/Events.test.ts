/** The retention job on every store: thirty days of events are kept, older ones go. */
import { Access, Contacts, Events, Kernel } from "@crm/core"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { layerOn } from "../support/ports.js"
import { storages } from "../support/storages.js"

const DAY = 86_400_000

for (const storage of storages) {
  layer(layerOn(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports))))(
    `event retention [${storage.name}]`,
    (it) => {
      it.effect("purges events older than thirty days and keeps the rest", () =>
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
          expect(page.data.map((event) => event.data.first_name)).toEqual(["kept"])
        })
      )
    }
  )
}
