/**
 * The settings document: its deal pipelines and record types at a glance, and the whole document
 * as JSON to edit and save (`settings:write`), with what the server refuses shown beside it.
 */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, element, say } from "../shared/dom.js"
import { clearIssues, json } from "../shared/forms.js"
import { settings } from "./api.js"
import { onSubmit } from "./forms.js"
import { may, organisationId } from "./state.js"

type Organisation = Schemas["Organisation"]

const pipelineItem = (pipeline: Schemas["Pipeline"]) =>
  element(
    "li",
    {},
    element("strong", {}, pipeline.name),
    element(
      "ol",
      { class: "stages", "aria-label": `Stages of ${pipeline.name}` },
      ...pipeline.stages.map((stage) =>
        element("li", {}, stage.name, " ", element("span", { class: "muted" }, `(${stage.kind})`))
      )
    )
  )

const recordTypeItem = (type: Schemas["RecordType"]) =>
  element(
    "li",
    {},
    element("strong", {}, type.name),
    " ",
    element("code", { class: "muted" }, type.key),
    type.fields.length === 0
      ? element("p", { class: "muted" }, "No fields.")
      : element(
          "ul",
          { class: "fields", "aria-label": `Fields of ${type.name}` },
          ...type.fields.map((field) =>
            element("li", {}, field.name ?? field.key, " ", element("span", { class: "muted" }, `(${field.type})`))
          )
        )
  )

const listOrEmpty = (list: HTMLElement, items: ReadonlyArray<Node>, empty: string) =>
  list.replaceChildren(...(items.length === 0 ? [element("li", { class: "muted" }, empty)] : items))

const show = (organisation: Organisation) => {
  const { settings: document } = organisation
  listOrEmpty($("#pipeline-list"), document.pipelines.map(pipelineItem), "No pipelines.")
  listOrEmpty($("#record-type-list"), document.record_types.map(recordTypeItem), "No record types.")
  $<HTMLTextAreaElement>("#settings").value = JSON.stringify(document, null, 2)
}

export interface PipelinesSection {
  readonly open: () => Promise<void>
  /** The editor is read-only to a role that does not change the settings. */
  readonly permit: () => void
}

export const pipelinesSection = (): PipelinesSection => {
  const form = $<HTMLFormElement>("#settings-form")

  onSubmit(form, async (data) => {
    const organisation = await must(
      settings.PUT("/organisations/{id}/settings", {
        params: { path: { id: organisationId() } },
        // Sent as written: the API checks the document and names what it refuses.
        body: json(data, "settings") as Schemas["SettingsInput"]
      })
    )
    show(organisation)
    say("Settings saved.")
  })

  return {
    open: async () => {
      clearIssues(form)
      show(await must(settings.GET("/organisations/{id}", { params: { path: { id: organisationId() } } })))
    },
    permit: () => {
      $<HTMLTextAreaElement>("#settings").readOnly = !may("settings:write")
    }
  }
}
