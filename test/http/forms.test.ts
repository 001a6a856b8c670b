import { expect, it } from "vitest"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const ALL_SCOPES = ["read", "write", "forms:submit", "analytics:write"]

const CONTACT_US = {
  name: "Contact us",
  fields: [
    { key: "email", type: "email", required: true, maps_to: "email" },
    { key: "name", type: "text", maps_to: "first_name" },
    { key: "surname", type: "text", maps_to: "last_name" },
    { key: "phone", type: "phone", maps_to: "phone" },
    { key: "size", type: "select", options: ["small", "large"], maps_to: "custom.size" },
    { key: "seats", type: "number" },
    { key: "consent", type: "checkbox", required: true },
    { key: "message", type: "textarea" }
  ]
}
const ADS = {
  name: "Ads",
  lead_source: "facebook",
  fields: [
    { key: "email", type: "email", required: true, maps_to: "email" },
    { key: "first", type: "text", maps_to: "first_name" }
  ]
}
const WEBINAR = {
  name: "Webinar",
  lead_source: true,
  fields: [
    { key: "email", type: "email", maps_to: "email" },
    { key: "name", type: "text", maps_to: "first_name" }
  ]
}

const events = async (client: Client, name?: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0${name === undefined ? "" : `&event=${name}`}`)
  expect(page.status).toBe(200)
  return page.body.data
}

const setup = async (server: () => any, settings: Record<string, unknown> = {}) => {
  const t = await server().tenant({ scopes: ALL_SCOPES, settings: { forms: [CONTACT_US, ADS, WEBINAR], ...settings } })
  const [contactUs, ads, webinar] = t.organisation.settings.forms.map((form: any) => form.id)
  return { ...t, forms: { contactUs, ads, webinar } }
}

const ANSWERS = { email: "Ada@Example.com", name: "Ada", phone: "+44 20 7946 0000", size: "large", consent: true }

onEveryStore("forms and visits", (server) => {
  it("needs forms:submit to submit or read counts and analytics:write to record visits", async () => {
    const { organisation, forms } = await setup(server)
    const keyWith = async (scopes: Array<string>) =>
      server().as((await server().admin.post(`/organisations/${organisation.id}/keys`, { scopes })).body.key)
    const crm = await keyWith(["read", "write"])
    for (const response of [
      await crm.post(`/forms/${forms.contactUs}/submissions`, { fields: ANSWERS }),
      await crm.get(`/forms/${forms.contactUs}/counts`)
    ]) {
      expect(response.status).toBe(403)
      expect(response.body.error).toBe("missing_scope:forms:submit")
    }
    const visit = await crm.post("/visits", { url: "https://example.com/" })
    expect(visit.status).toBe(403)
    expect(visit.body.error).toBe("missing_scope:analytics:write")

    const site = await keyWith(["forms:submit"])
    expect((await site.post(`/forms/${forms.contactUs}/submissions`, { fields: ANSWERS })).status).toBe(201)
    expect((await site.get(`/forms/${forms.contactUs}/counts`)).status).toBe(200)
    expect((await site.post("/visits", { url: "https://example.com/" })).body.error).toBe(
      "missing_scope:analytics:write"
    )
    const analytics = await keyWith(["analytics:write"])
    expect((await analytics.post("/visits", { url: "https://example.com/" })).status).toBe(202)
    expect((await analytics.get(`/forms/${forms.contactUs}/counts`)).body.error).toBe("missing_scope:forms:submit")
  })

  it("creates the contact from the mapped answers, then links it on a later submission with the same email", async () => {
    const { client, forms } = await setup(server)
    const first = await client.post(`/forms/${forms.contactUs}/submissions`, {
      fields: { ...ANSWERS, seats: "12", message: "", surname: null },
      visitor_id: "v-1"
    })
    expect(first.status).toBe(201)
    expect(Object.keys(first.body).sort()).toEqual([
      "contact_created",
      "contact_id",
      "created_at",
      "fields",
      "form_id",
      "id",
      "visitor_id"
    ])
    expect(first.body).toMatchObject({ form_id: forms.contactUs, contact_created: true, visitor_id: "v-1" })
    expect(first.body.fields).toEqual({ ...ANSWERS, email: "ada@example.com", seats: 12 })
    expect(first.body.created_at).toMatch(ISO_MS)

    const contact = await client.get(`/contacts/${first.body.contact_id}`)
    expect(contact.status).toBe(200)
    expect(contact.body).toMatchObject({
      first_name: "Ada",
      last_name: null,
      email: "ada@example.com",
      phone: "+44 20 7946 0000",
      status: "lead",
      source: "form",
      custom: { size: "large" }
    })

    const again = await client.post(`/forms/${forms.contactUs}/submissions`, {
      fields: { email: "ADA@example.COM", consent: true, name: "Someone else" }
    })
    expect(again.status).toBe(201)
    expect(again.body).toMatchObject({ contact_id: first.body.contact_id, contact_created: false, visitor_id: null })
    expect((await client.get("/contacts")).body.data).toHaveLength(1)

    expect((await events(client, "contact.created")).map((e) => e.data.id)).toEqual([first.body.contact_id])
    const submitted = await events(client, "form.submitted")
    expect(submitted.map((e) => e.data)).toEqual([
      { form_id: forms.contactUs, contact_id: first.body.contact_id, fields: first.body.fields },
      { form_id: forms.contactUs, contact_id: first.body.contact_id, fields: again.body.fields }
    ])
    expect(await events(client, "lead.received")).toEqual([])
  })

  it("creates one contact when submissions with the same new email arrive at once", async () => {
    const { client, forms } = await setup(server)
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        client.post(`/forms/${forms.ads}/submissions`, { fields: { email: "race@example.com", first: `R${i}` } })
      )
    )
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(201))
    expect(new Set(answers.map((answer) => answer.body.contact_id)).size).toBe(1)
    expect(answers.filter((answer) => answer.body.contact_created)).toHaveLength(1)
    expect((await client.get("/contacts")).body.data).toHaveLength(1)
    expect(await events(client, "contact.created")).toHaveLength(1)
    const leads = (await events(client, "lead.received")).map((e) => e.data.created)
    expect(leads.filter((created) => created)).toEqual([true])
    expect((await client.get(`/forms/${forms.ads}/counts`)).body).toMatchObject({ total: 6, contacts_created: 1 })
  })

  it("reports a lead-source form's submissions as lead.received, with its provider", async () => {
    const { client, forms } = await setup(server)
    const existing = await client.post("/contacts", { first_name: "Grace", email: "grace@example.com" })
    const fresh = await client.post(`/forms/${forms.ads}/submissions`, { fields: { email: "new@example.com" } })
    const known = await client.post(`/forms/${forms.webinar}/submissions`, {
      fields: { email: "GRACE@example.com", name: "G" }
    })
    expect(fresh.status).toBe(201)
    expect(known.body).toMatchObject({ contact_id: existing.body.id, contact_created: false })
    const leads = await events(client, "lead.received")
    expect(leads.map((e) => e.data)).toEqual([
      {
        provider: "facebook",
        lead_id: fresh.body.id,
        form_id: forms.ads,
        contact_id: fresh.body.contact_id,
        created: true
      },
      { provider: "form", lead_id: known.body.id, form_id: forms.webinar, contact_id: existing.body.id, created: false }
    ])
    expect((await client.get(`/contacts/${fresh.body.contact_id}`)).body.source).toBe("facebook")
    // The contact, the submission and both events of one submission are one unit of work, in that order.
    const all = (await events(client)).map((e) => e.event)
    expect(all.slice(-5)).toEqual([
      "contact.created",
      "form.submitted",
      "lead.received",
      "form.submitted",
      "lead.received"
    ])
  })

  it("refuses answers with submission_refused naming the reason and the field, and records nothing", async () => {
    const { client, forms } = await setup(server)
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...ANSWERS, colour: "red" }, "unknown_field", "colour"],
      [{ ...ANSWERS, email: undefined }, "missing_required", "email"],
      [{ ...ANSWERS, email: "" }, "missing_required", "email"],
      [{ ...ANSWERS, consent: false }, "missing_required", "consent"],
      [{ ...ANSWERS, email: "not-an-address" }, "invalid_email", "email"],
      [{ ...ANSWERS, email: 42 }, "invalid_email", "email"],
      [{ ...ANSWERS, size: "medium" }, "invalid_value", "size"],
      [{ ...ANSWERS, phone: "call me" }, "invalid_value", "phone"],
      [{ ...ANSWERS, seats: "many" }, "invalid_value", "seats"],
      [{ ...ANSWERS, consent: "yes" }, "invalid_value", "consent"],
      [{ ...ANSWERS, name: ["Ada"] }, "invalid_value", "name"]
    ]
    for (const [fields, reason, field] of cases) {
      const refused = await client.post(`/forms/${forms.contactUs}/submissions`, { fields })
      expect(refused.status, `${reason} ${field}`).toBe(422)
      expect(refused.body.error).toBe("submission_refused")
      expect(refused.body.detail).toEqual({ reason, field })
    }
    const nameless = await client.post(`/forms/${forms.webinar}/submissions`, { fields: {} })
    expect(nameless.status).toBe(422)
    expect(nameless.body.detail).toEqual({ reason: "missing_required", field: "email" })

    for (const body of [{}, { fields: "x" }, { fields: {}, extra: 1 }]) {
      const invalid = await client.post(`/forms/${forms.contactUs}/submissions`, body)
      expect(invalid.status, JSON.stringify(body)).toBe(422)
      expect(invalid.body.error).toBe("validation_failed")
    }
    expect((await client.get(`/forms/${forms.contactUs}/counts`)).body.total).toBe(0)
    expect((await client.get("/contacts")).body.data).toEqual([])
    expect(await events(client)).toEqual([])
  })

  it("holds answers mapped onto contact fields to the contact's own length limits, in the form's order", async () => {
    const { client, forms } = await setup(server)
    const referral = await server().tenant({
      scopes: ALL_SCOPES,
      settings: {
        forms: [
          {
            name: "Referral",
            fields: [
              { key: "email", type: "email", required: true, maps_to: "email" },
              { key: "referrer", type: "text", maps_to: "source" },
              { key: "tel", type: "text", maps_to: "phone" }
            ]
          }
        ]
      }
    })
    const referralForm = referral.organisation.settings.forms[0].id
    const cases: Array<[Client, string, Record<string, unknown>, string]> = [
      [client, forms.contactUs, { ...ANSWERS, name: "n".repeat(501) }, "name"],
      [client, forms.contactUs, { ...ANSWERS, surname: "s".repeat(501) }, "surname"],
      // A phone field admits 50 digits after the +, one more character than a contact's phone holds.
      [client, forms.contactUs, { ...ANSWERS, phone: `+${"1".repeat(50)}` }, "phone"],
      // The first refusal in the form's order wins: the name comes before the missing consent.
      [client, forms.contactUs, { ...ANSWERS, name: "n".repeat(501), consent: false }, "name"],
      [referral.client, referralForm, { email: "ref@example.com", referrer: "r".repeat(501) }, "referrer"],
      [referral.client, referralForm, { email: "ref@example.com", tel: "5".repeat(51) }, "tel"]
    ]
    for (const [submitter, form, fields, field] of cases) {
      const refused = await submitter.post(`/forms/${form}/submissions`, { fields })
      expect(refused.status, field).toBe(422)
      expect(refused.body).toMatchObject({ error: "submission_refused", detail: { reason: "invalid_value", field } })
    }
    for (const submitter of [client, referral.client]) {
      expect((await submitter.get("/contacts")).body.data).toEqual([])
      expect(await events(submitter)).toEqual([])
    }

    const longest = { ...ANSWERS, name: "n".repeat(500), surname: "s".repeat(500), phone: `+${"1".repeat(49)}` }
    expect((await client.post(`/forms/${forms.contactUs}/submissions`, { fields: longest })).status).toBe(201)
    const [contact] = (await client.get("/contacts")).body.data
    expect(contact).toMatchObject({ first_name: longest.name, last_name: longest.surname, phone: longest.phone })
    const fits = { email: "ref@example.com", referrer: "r".repeat(500), tel: "5".repeat(50) }
    expect((await referral.client.post(`/forms/${referralForm}/submissions`, { fields: fits })).status).toBe(201)
    const [referred] = (await referral.client.get("/contacts")).body.data
    expect(referred).toMatchObject({ source: fits.referrer, phone: fits.tel })
  })

  it("refuses a date that is not a day of the calendar, and reads a field named constructor as any other", async () => {
    const { client, organisation } = await server().tenant({
      scopes: ALL_SCOPES,
      settings: {
        forms: [
          {
            name: "Odd",
            fields: [
              { key: "email", type: "email", required: true, maps_to: "email" },
              { key: "day", type: "date" },
              { key: "constructor", type: "text" }
            ]
          }
        ]
      }
    })
    const formId = organisation.settings.forms[0].id
    for (const day of ["2026-02-31", "2026-13-01", "2026-04-31"]) {
      const refused = await client.post(`/forms/${formId}/submissions`, { fields: { email: "a@example.com", day } })
      expect(refused.status, day).toBe(422)
      expect(refused.body).toMatchObject({
        error: "submission_refused",
        detail: { reason: "invalid_value", field: "day" }
      })
    }
    const accepted = await client.post(`/forms/${formId}/submissions`, {
      fields: { email: "a@example.com", day: "2028-02-29" }
    })
    expect(accepted.status).toBe(201)
    expect(accepted.body.fields).toEqual({ email: "a@example.com", day: "2028-02-29" })
    const named = await client.post(`/forms/${formId}/submissions`, {
      fields: { email: "a@example.com", constructor: "yes" }
    })
    expect(named.status).toBe(201)
    expect(named.body.fields).toEqual({ email: "a@example.com", constructor: "yes" })
  })

  it("refuses answers no store can keep (a NUL character) with 422 rather than failing", async () => {
    const { client, forms } = await setup(server)
    const refused = await client.post(`/forms/${forms.contactUs}/submissions`, {
      fields: { ...ANSWERS, message: "hello\u0000" }
    })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toBe("validation_failed")
    expect(refused.body.detail.map((issue: any) => issue.path)).toEqual(["fields.message"])
    const visit = await client.post("/visits", { url: "https://example.com/", visitor_id: "v\u0000" })
    expect(visit.status).toBe(422)
    expect(visit.body.detail.map((issue: any) => issue.path)).toEqual(["visitor_id"])
    expect((await client.get("/contacts")).body.data).toEqual([])
    expect(await events(client)).toEqual([])
  })

  it("attaches a visit to the contact its visitor id was linked to last, by a visit or a later form submission", async () => {
    const { client, forms } = await setup(server)
    const first = await client.post("/contacts", { first_name: "Ada" })
    const visit = await client.post("/visits", {
      url: "https://example.com/",
      visitor_id: "shared",
      contact_id: first.body.id
    })
    expect(visit.body.contact_id).toBe(first.body.id)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const submitted = await client.post(`/forms/${forms.contactUs}/submissions`, {
      fields: { ...ANSWERS, email: "second@example.com" },
      visitor_id: "shared"
    })
    expect(submitted.body.contact_id).not.toBe(first.body.id)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const after = await client.post("/visits", { url: "https://example.com/next", visitor_id: "shared" })
    expect(after.body.contact_id).toBe(submitted.body.contact_id)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const back = await client.post("/visits", {
      url: "https://example.com/",
      visitor_id: "shared",
      contact_id: first.body.id
    })
    expect(back.body.contact_id).toBe(first.body.id)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const later = await client.post("/visits", { url: "https://example.com/again", visitor_id: "shared" })
    expect(later.body.contact_id).toBe(first.body.id)
  })

  it("rolls the whole submission back when the contact cannot be created", async () => {
    const { client, forms } = await setup(server, { plan: { max_contacts: 0 } })
    const refused = await client.post(`/forms/${forms.ads}/submissions`, { fields: { email: "x@example.com" } })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ error: "plan_refused", detail: "MAX_CONTACTS" })
    expect((await client.get(`/forms/${forms.ads}/counts`)).body.total).toBe(0)
    expect(await events(client)).toEqual([])
  })

  it("answers 404 for an unknown form and for another organisation's form", async () => {
    const a = await setup(server)
    const b = await setup(server)
    for (const response of [
      await a.client.post(`/forms/${crypto.randomUUID()}/submissions`, { fields: ANSWERS }),
      await a.client.post(`/forms/${b.forms.contactUs}/submissions`, { fields: ANSWERS }),
      await a.client.get(`/forms/${b.forms.contactUs}/counts`),
      await a.client.get("/forms/not-a-uuid/counts")
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
  })

  it("counts a form's submissions: in all, in the last 30 days, and those that created their contact", async () => {
    const { client, forms } = await setup(server)
    const empty = await client.get(`/forms/${forms.contactUs}/counts`)
    expect(empty.status).toBe(200)
    expect(empty.body).toEqual({
      form_id: forms.contactUs,
      total: 0,
      last_30_days: 0,
      contacts_created: 0,
      last_submitted_at: null
    })
    await client.post(`/forms/${forms.contactUs}/submissions`, { fields: ANSWERS })
    await client.post(`/forms/${forms.contactUs}/submissions`, { fields: ANSWERS })
    const last = await client.post(`/forms/${forms.contactUs}/submissions`, {
      fields: { ...ANSWERS, email: "other@example.com" }
    })
    await client.post(`/forms/${forms.ads}/submissions`, { fields: { email: "ads@example.com" } })
    const counts = await client.get(`/forms/${forms.contactUs}/counts`)
    expect(counts.body).toEqual({
      form_id: forms.contactUs,
      total: 3,
      last_30_days: 3,
      contacts_created: 2,
      last_submitted_at: last.body.created_at
    })
  })

  it("records visits with 202, attached to the contact given or the one its visitor id is linked to", async () => {
    const a = await setup(server)
    const b = await setup(server)
    const contact = await a.client.post("/contacts", { first_name: "Ada" })
    const visit = await a.client.post("/visits", {
      url: "https://example.com/pricing",
      referrer: "https://search.example/",
      visitor_id: "v-9",
      contact_id: contact.body.id,
      occurred_at: "2026-11-22T10:00:00+02:00"
    })
    expect(visit.status).toBe(202)
    expect(Object.keys(visit.body).sort()).toEqual([
      "contact_id",
      "created_at",
      "id",
      "occurred_at",
      "referrer",
      "url",
      "visitor_id"
    ])
    expect(visit.body).toMatchObject({
      url: "https://example.com/pricing",
      referrer: "https://search.example/",
      visitor_id: "v-9",
      contact_id: contact.body.id,
      occurred_at: "2026-11-22T08:00:00.000Z"
    })
    const upper = await a.client.post("/visits", {
      url: "https://example.com/",
      contact_id: contact.body.id.toUpperCase()
    })
    expect(upper.status).toBe(202)
    expect(upper.body.contact_id).toBe(contact.body.id)
    const later = await a.client.post("/visits", { url: "https://example.com/docs", visitor_id: "v-9" })
    expect(later.body).toMatchObject({ contact_id: contact.body.id, referrer: null })
    expect(later.body.occurred_at).toMatch(ISO_MS)
    const anonymous = await a.client.post("/visits", { url: "https://example.com/", visitor_id: "v-unknown" })
    expect(anonymous.body.contact_id).toBeNull()
    expect(
      (await b.client.post("/visits", { url: "https://example.com/", visitor_id: "v-9" })).body.contact_id
    ).toBeNull()

    const submitted = await a.client.post(`/forms/${a.forms.contactUs}/submissions`, {
      fields: { ...ANSWERS, email: "visitor@example.com" },
      visitor_id: "v-form"
    })
    const afterForm = await a.client.post("/visits", { url: "https://example.com/thanks", visitor_id: "v-form" })
    expect(afterForm.body.contact_id).toBe(submitted.body.contact_id)

    const theirs = await b.client.post("/contacts", { first_name: "Eve" })
    for (const contactId of [theirs.body.id, crypto.randomUUID()]) {
      const refused = await a.client.post("/visits", { url: "https://example.com/", contact_id: contactId })
      expect(refused.status).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      expect(refused.body.detail.map((issue: any) => issue.path)).toEqual(["contact_id"])
    }
    for (const body of [{}, { url: "not a url" }, { url: "https://example.com/", occurred_at: "yesterday" }]) {
      const invalid = await a.client.post("/visits", body)
      expect(invalid.status, JSON.stringify(body)).toBe(422)
      expect(invalid.body.error).toBe("validation_failed")
    }
    // Visits are no events of the catalogue.
    expect((await events(a.client)).some((e) => e.event.startsWith("visit"))).toBe(false)
  })
})
