/**
 * `Search` on every store: one read across contacts, companies and deals, the kinds taken in turn,
 * and `fetch` turning a result's id back into its record.
 */
import { Access, Companies, Contacts, Deals, Kernel, Money, Search } from "@crm/core"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { layerOn } from "../support/ports.js"
import { storages } from "../support/storages.js"

const actor = { keyId: null }

type Services = Access.Access | Companies.Companies | Contacts.Contacts | Deals.Deals | Search.Search

for (const storage of storages) {
  // On the live clock: the case sleeps so that Bo is newer than Ada by the clock.
  layer(
    layerOn<Services>(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports))),
    { excludeTestServices: true }
  )(`search [${storage.name}]`, (it) => {
    it.effect("finds each kind in turn, says when it left some out, and fetches what it found", () =>
      Effect.gen(function* () {
        const access = yield* Access.Access
        const search = yield* Search.Search
        const organisation = yield* access.createOrganisation({ name: "Search" })
        const other = yield* access.createOrganisation({ name: "Elsewhere" })
        const acme = yield* (yield* Companies.Companies).create(
          organisation,
          { name: "Acme Widgets", domain: "acme.example" },
          actor
        )
        const contacts = yield* Contacts.Contacts
        const ada = yield* contacts.create(
          organisation,
          { first_name: "Ada", email: "ada@acme.example", company_id: acme.id },
          actor
        )
        // Bo must be newer than Ada by the clock: within one millisecond the order falls to their random ids.
        yield* Effect.sleep("2 millis")
        const bo = yield* contacts.create(organisation, { first_name: "Bo", email: "bo@acme.example" }, actor)
        const deal = yield* (yield* Deals.Deals).create(
          organisation,
          { title: "Acme renewal", value: Money.ofNumber(100) },
          actor
        )
        yield* contacts.create(other, { first_name: "Acme", email: "x@acme.example" }, actor)

        const found = yield* search.find(organisation, "ACME", 20)
        // Each kind newest first, one of each kind in turn; the other organisation's contact not at all.
        expect(found.items.map((hit) => hit.id)).toEqual([
          `contact:${bo.id}`,
          `company:${acme.id}`,
          `deal:${deal.id}`,
          `contact:${ada.id}`
        ])
        expect(found.has_more).toBe(false)
        expect(found.items[3]).toEqual({
          id: `contact:${ada.id}`,
          type: "contact",
          title: "Ada",
          text: "ada@acme.example · Acme Widgets · lead"
        })
        expect(found.items[2]!.text).toMatch(/^.+ \(open\) · 100 /)

        const first = yield* search.find(organisation, "acme", 2)
        expect([first.items.length, first.has_more]).toEqual([2, true])

        const fetched = yield* search.fetch(organisation, ` CONTACT:${ada.id} `)
        expect(fetched).toMatchObject({ id: `contact:${ada.id}`, type: "contact", title: "Ada", record: ada })
        expect(fetched.text.split("\n")[0]).toBe("company: Acme Widgets")
        const dealText = (yield* search.fetch(organisation, `deal:${deal.id}`)).text.split("\n")
        expect(dealText.slice(0, 2)).toEqual(["pipeline: Sales", expect.stringMatching(/^stage: .+/)])

        const refused = yield* Effect.flip(search.fetch(organisation, `invoice:${deal.id}`))
        expect(refused).toMatchObject({ code: "validation_failed", detail: [{ path: "id" }] })
        const elsewhere = yield* Effect.flip(search.fetch(other, `deal:${deal.id}`))
        expect(elsewhere._tag).toBe("NotFound")
      })
    )
  })
}
