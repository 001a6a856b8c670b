/** The organisations: the list, a new one, and the open one's facts and settings document. */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, button, element, say } from "../shared/dom.js"
import { clearIssues, json, text } from "../shared/forms.js"
import { conceal } from "../shared/secrets.js"
import { PAGE_SIZE, type PagedTable } from "../shared/table.js"
import { admin } from "./api.js"
import * as Chosen from "./chosen.js"
import { act, onSubmit } from "./forms.js"
import type { InvitationSection } from "./invitations.js"

type Listed = Pick<Schemas["OrganisationSummary"], "id" | "name" | "timezone" | "default_currency">

export interface OrganisationsSection {
  /** The list from its first page, as at sign-in. */
  readonly start: () => Promise<void>
}

/** What the open organisation shows: its tables loaded again, and its invitation link forgotten, when another is opened. */
export interface OrganisationTables {
  readonly keys: PagedTable
  readonly mail: PagedTable
  readonly invitation: InvitationSection
}

const markCurrent = () => {
  for (const pick of document.querySelectorAll<HTMLElement>("#organisation-list .pick")) {
    if (pick.dataset.id === Chosen.chosen.organisation?.id) pick.setAttribute("aria-current", "true")
    else pick.removeAttribute("aria-current")
  }
}

const showOrganisation = (organisation: Schemas["Organisation"]) => {
  $("#organisation-title").textContent = organisation.name
  $("#organisation-id").textContent = organisation.id
  $("#organisation-timezone").textContent = organisation.settings.timezone
  $("#organisation-currency").textContent = organisation.settings.default_currency
  $<HTMLTextAreaElement>("#settings").value = JSON.stringify(organisation.settings, null, 2)
  const listed = document.querySelector(`#organisation-list .pick[data-id="${organisation.id}"] .pick-name`)
  if (listed !== null) listed.textContent = organisation.name
}

export const organisationsSection = (tables: OrganisationTables): OrganisationsSection => {
  let offset = 0

  const load = async () => {
    const page = await must(admin().GET("/organisations", { params: { query: { limit: PAGE_SIZE, offset } } }))
    const list = $("#organisation-list")
    for (const organisation of page.data) list.append(item(organisation))
    offset += page.data.length
    $("#organisations-more").hidden = !page.has_more
    markCurrent()
  }

  const item = (organisation: Listed) =>
    element(
      "li",
      { class: "pick-row" },
      button(
        { class: "pick", "data-id": organisation.id },
        () => act(() => open(organisation.id)),
        element("span", { class: "pick-name" }, organisation.name),
        element("span", { class: "pick-meta" }, `${organisation.default_currency} · ${organisation.timezone}`)
      )
    )

  const open = async (id: string, given?: Schemas["Organisation"]) => {
    const organisation = given ?? (await must(admin().GET("/organisations/{id}", { params: { path: { id } } })))
    Chosen.chosen.organisation = organisation
    Chosen.chosen.key = undefined
    Chosen.chosen.hook = undefined
    markCurrent()
    $("#organisation-empty").hidden = true
    $("#organisation-detail").hidden = false
    $("#hooks").hidden = true
    conceal("new-key")
    showOrganisation(organisation)
    clearIssues(settingsForm)
    clearIssues($<HTMLFormElement>("#key-form"))
    tables.invitation.clear()
    await Promise.all([tables.keys.reload(), tables.mail.reload()])
    $("#organisation-title").focus()
  }

  $("#organisations-more").addEventListener("click", () => act(load))

  const createForm = $<HTMLFormElement>("#organisation-form")
  onSubmit(createForm, async (data) => {
    const organisation = await must(admin().POST("/organisations", { body: { name: text(data, "name") } }))
    createForm.reset()
    $("#organisation-list").prepend(
      item({
        id: organisation.id,
        name: organisation.name,
        timezone: organisation.settings.timezone,
        default_currency: organisation.settings.default_currency
      })
    )
    offset++
    await open(organisation.id, organisation)
    say(`Organisation ${organisation.name} created.`)
  })

  const settingsForm = $<HTMLFormElement>("#settings-form")
  onSubmit(settingsForm, async (data) => {
    const organisation = await must(
      admin().PUT("/organisations/{id}/settings", {
        params: { path: { id: Chosen.organisation().id } },
        // Sent as the operator wrote it: the API checks the document and names what it refuses.
        body: json(data, "settings") as Schemas["SettingsInput"]
      })
    )
    Chosen.chosen.organisation = organisation
    showOrganisation(organisation)
    say("Settings saved.")
  })

  return {
    start: async () => {
      offset = 0
      $("#organisation-list").replaceChildren()
      await load()
    }
  }
}
