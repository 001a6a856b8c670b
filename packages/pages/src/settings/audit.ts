/** The organisation's audit trail, newest first, a page at a time (`audit:read`). */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { element, formatTime, say } from "../shared/dom.js"
import { type PagedTable, pagedTable } from "../shared/table.js"
import { settings } from "./api.js"
import { act } from "./forms.js"
import { organisationId } from "./state.js"

type Entry = Schemas["AuditEntry"]

const SECTION = "audit"

const actorOf = (actor: Entry["actor"]) => {
  switch (actor.kind) {
    case "user":
      return [actor.label ?? actor.id ?? "a person"]
    case "key":
      return [`Key ${actor.label ?? actor.id ?? ""}`.trim()]
    case "operator":
      return ["The operator"]
    case "system":
      return ["The system"]
    case "anonymous":
      return ["Someone not signed in", ...(actor.label === null ? [] : [element("br"), actor.label])]
  }
}

/** A summary's value as read: a list as its items, nothing as a dash, anything else as JSON. */
const shown = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value === null) return "—"
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.length === 0 ? "none" : value.join(", ")
  }
  return JSON.stringify(value)
}

/** What changed, one `name: value` a line. */
const summaryOf = (entry: Entry) => {
  const lines = Object.entries(entry.summary).map(([name, value]) =>
    element("li", {}, element("span", { class: "muted" }, `${name}: `), shown(value))
  )
  return lines.length === 0 ? "—" : element("ul", { class: "summary" }, ...lines)
}

const entryRow = (entry: Entry) =>
  element(
    "tr",
    { "data-action": entry.action },
    element("td", { class: "nowrap" }, formatTime(entry.at)),
    element("td", {}, ...actorOf(entry.actor)),
    element("th", { scope: "row" }, element("code", {}, entry.action)),
    element("td", { class: "wrap" }, summaryOf(entry)),
    element("td", {}, entry.address ?? "—")
  )

export const auditSection = (): PagedTable => {
  const table = pagedTable<Entry>({
    body: "#audit-table tbody",
    more: "#audit-more",
    fetch: (query) =>
      must(settings.GET("/organisations/{id}/audit", { params: { path: { id: organisationId() }, query } })),
    row: entryRow,
    columns: 5,
    empty: "Nothing recorded yet.",
    act: (load) => act(SECTION, load)
  })
  document.querySelector("#audit-refresh")?.addEventListener("click", () =>
    act(SECTION, async () => {
      await table.reload()
      say("Audit refreshed.")
    })
  )
  return table
}
