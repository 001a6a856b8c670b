/** An organisation's API keys: the list, a new key (shown once) and revoking one. */
import type { Schemas } from "@crm/client"
import { admin, must } from "./api.js"
import * as Chosen from "./chosen.js"
import { $, badge, button, element, formatTime, say } from "./dom.js"
import { act, checked, onSubmit, text } from "./forms.js"
import type { HooksSection } from "./hooks.js"
import { type PagedTable, pagedTable } from "./table.js"

type Key = Schemas["KeySummary"]

const keyStatus = (key: Key) => {
  if (key.revoked_at !== null) return badge("Revoked", "bad")
  if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) return badge("Expired", "bad")
  return badge("Active", "good")
}

/** A `datetime-local` value (the browser's local time) as an instant; what is no date goes as typed, for the API to refuse. */
const localToIso = (value: string) => {
  if (value === "") return undefined
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toISOString()
}

export const keysSection = (hooks: HooksSection): PagedTable => {
  const keyTable = pagedTable<Key>({
    body: "#key-table tbody",
    more: "#keys-more",
    fetch: (query) =>
      must(admin().GET("/organisations/{id}/keys", { params: { path: { id: Chosen.organisation().id }, query } })),
    row: (key) => keyRow(key),
    columns: 6,
    empty: "No keys yet."
  })

  const keyRow = (key: Key) => {
    const name = key.name ?? "(unnamed)"
    const live = key.revoked_at === null
    return element(
      "tr",
      { "data-key-id": key.id },
      element("th", { scope: "row" }, name, element("br"), element("code", { class: "muted" }, key.id)),
      element("td", {}, key.scopes.join(", ")),
      element("td", {}, formatTime(key.expires_at)),
      element("td", {}, key.allowed_ips.length === 0 ? "any" : key.allowed_ips.join(", ")),
      element("td", {}, keyStatus(key)),
      element(
        "td",
        { class: "row-actions" },
        button({ class: "quiet", "aria-label": `Webhooks of ${name}` }, () => act(() => hooks.open(key)), "Webhooks"),
        live
          ? button({ class: "danger", "aria-label": `Revoke ${name}` }, () => act(() => revokeKey(key)), "Revoke")
          : ""
      )
    )
  }

  const revokeKey = async (key: Key) => {
    const name = key.name ?? key.id
    if (!confirm(`Revoke the key ${name}? Every request with it is refused from now on.`)) return
    await must(admin().DELETE("/keys/{id}", { params: { path: { id: key.id } } }))
    await keyTable.reload()
    say(`Key ${name} revoked.`)
    $("#keys-title").focus()
  }

  const form = $<HTMLFormElement>("#key-form")
  onSubmit(form, async (data) => {
    const name = text(data, "name").trim()
    const expires = localToIso(text(data, "expires_at"))
    const ips = text(data, "allowed_ips")
      .split(/[\s,]+/)
      .filter((ip) => ip !== "")
    const created = await must(
      admin().POST("/organisations/{id}/keys", {
        params: { path: { id: Chosen.organisation().id } },
        body: {
          ...(name === "" ? {} : { name }),
          scopes: checked<Schemas["Scope"]>(data, "scopes"),
          ...(expires === undefined ? {} : { expires_at: expires }),
          allowed_ips: ips
        }
      })
    )
    form.reset()
    $("#new-key-value").textContent = created.key
    const shown = $("#new-key")
    shown.hidden = false
    await keyTable.reload()
    shown.focus()
    say(`Key ${created.name ?? created.id} created. Copy it now: it is shown once.`)
  })

  return keyTable
}
