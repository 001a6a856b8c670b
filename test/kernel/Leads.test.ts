/** Leads from external providers on every store: the contact is created or linked, `lead.received` emitted. */
import { Access, Contacts, Events, Kernel, Leads, Settings } from "@crm/core"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { layerOn } from "../support/ports.js"
import { storages } from "../support/storages.js"

const actor = { keyId: null }

type Services = Access.Access | Contacts.Contacts | Events.Events | Leads.Leads

const eventsOf = (organisation: Settings.Organisation) =>
  Effect.flatMap(Events.Events, (events) => events.poll(organisation.id, { limit: 100 })).pipe(
    Effect.map((page) => page.data.map(({ event, data }) => ({ event, data })))
  )

for (const storage of storages) {
  // Built and run on the live clock, as a server runs the kernel.
  layer(
    layerOn<Services>(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports))),
    { excludeTestServices: true }
  )(`leads [${storage.name}]`, (it) => {
    it.effect(
      "creates the contact of a new lead, links a known one by email, and emits exactly the catalogue's keys",
      () =>
        Effect.gen(function* () {
          const access = yield* Access.Access
          const leads = yield* Leads.Leads
          const contacts = yield* Contacts.Contacts
          const organisation = yield* access.createOrganisation({ name: "Leads" })

          const first = yield* leads.receive(
            organisation,
            {
              provider: "facebook",
              external_id: "fb-1",
              email: "Ada@Example.com",
              first_name: "Ada",
              custom: { ad: "x" }
            },
            actor
          )
          expect(first).toMatchObject({ provider: "facebook", lead_id: "fb-1", form_id: null, created: true })
          const contact = yield* contacts.get(organisation, first.contact_id)
          expect(contact).toMatchObject({
            first_name: "Ada",
            email: "ada@example.com",
            source: "facebook",
            status: "lead",
            custom: { ad: "x" }
          })

          const again = yield* leads.receive(
            organisation,
            { provider: "linkedin", external_id: "li-7", email: "ADA@example.com", last_name: "L" },
            actor
          )
          expect(again).toEqual({
            provider: "linkedin",
            lead_id: "li-7",
            form_id: null,
            contact_id: first.contact_id,
            created: false
          })
          const nameOnly = yield* leads.receive(
            organisation,
            { provider: "phone", external_id: "p-1", first_name: "Bo" },
            actor
          )
          expect(nameOnly.created).toBe(true)
          expect(nameOnly.contact_id).not.toBe(first.contact_id)

          const events = yield* eventsOf(organisation)
          expect(events.map((e) => e.event)).toEqual([
            "contact.created",
            "lead.received",
            "lead.received",
            "contact.created",
            "lead.received"
          ])
          const received = events.filter((e) => e.event === "lead.received").map((e) => e.data)
          for (const data of received)
            expect(Object.keys(data).sort()).toEqual(["contact_id", "created", "form_id", "lead_id", "provider"])
          expect(received).toEqual([first, again, nameOnly])
        })
    )

    it.effect("answers a lead delivered again as the first time and changes nothing, also when deliveries race", () =>
      Effect.gen(function* () {
        const access = yield* Access.Access
        const leads = yield* Leads.Leads
        const contacts = yield* Contacts.Contacts
        const organisation = yield* access.createOrganisation({ name: "Retries" })
        const other = yield* access.createOrganisation({ name: "Elsewhere" })
        const lead = { provider: "facebook", external_id: "fb-9", first_name: "Nameless" }

        const first = yield* leads.receive(organisation, lead, actor)
        expect(yield* leads.receive(organisation, { ...lead, first_name: "Changed" }, actor)).toEqual(first)
        const racing = yield* Effect.all(
          Array.from({ length: 4 }, () => leads.receive(organisation, { ...lead, external_id: "fb-10" }, actor)),
          { concurrency: "unbounded" }
        )
        expect(new Set(racing.map((received) => JSON.stringify(received))).size).toBe(1)
        expect(racing[0]!.created).toBe(true)
        const otherProvider = yield* leads.receive(organisation, { ...lead, provider: "linkedin" }, actor)
        expect(otherProvider.contact_id).not.toBe(first.contact_id)
        const otherOrganisation = yield* leads.receive(other, lead, actor)
        expect(otherOrganisation.created).toBe(true)

        const page = yield* contacts.list(organisation, { limit: 50, offset: 0 })
        expect(page.data).toHaveLength(3)
        const events = yield* eventsOf(organisation)
        expect(events.filter((e) => e.event === "lead.received").map((e) => e.data)).toEqual([
          first,
          racing[0],
          otherProvider
        ])
      })
    )

    it("takes only leads that name a person: an email, a first or a last name", () => {
      expect(Leads.LeadInput.safeParse({ provider: "x", external_id: "1", phone: "123" }).success).toBe(false)
      expect(Leads.LeadInput.safeParse({ provider: "x", external_id: "1", email: "nope" }).success).toBe(false)
      expect(Leads.LeadInput.safeParse({ provider: "x", external_id: "1", last_name: "L" }).success).toBe(true)
    })

    it.effect("refuses a lead past the plan's contact limit and leaves nothing behind", () =>
      Effect.gen(function* () {
        const access = yield* Access.Access
        const leads = yield* Leads.Leads
        const organisation = yield* access.createOrganisation({
          name: "Full",
          settings: Settings.SettingsInput.parse({ plan: { max_contacts: 0 } })
        })
        const refused = yield* Effect.either(
          leads.receive(organisation, { provider: "facebook", external_id: "fb-2", email: "x@example.com" }, actor)
        )
        expect(Either.isLeft(refused) && refused.left._tag).toBe("PlanRefused")
        expect(yield* eventsOf(organisation)).toEqual([])
      })
    )
  })
}
