import { Access, Contacts, Events } from "@crm/core"
import { Effect } from "effect"

/** Create an organisation and a contact, then read the organisation's event log. */
export const program = Effect.gen(function* () {
  const acme = yield* (yield* Access.Access).createOrganisation({ name: "Acme" })
  yield* (yield* Contacts.Contacts).create(acme, { email: "ada@example.com" }, { keyId: null })
  const { data } = yield* (yield* Events.Events).poll(acme.id, { limit: 100 })
  for (const event of data) console.log(event.id, event.event, event.data.email)
})
