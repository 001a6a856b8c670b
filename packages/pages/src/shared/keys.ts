/** What both pages show and do with an organisation's API keys: a key's row, the form read for the API, a new key shown once, revoking one. */
import type { Schemas } from "@crm/client"
import { $, badge, element, say } from "./dom.js"
import { checked, text } from "./forms.js"
import { reveal } from "./secrets.js"

type Key = Schemas["KeySummary"]

export const keyName = (key: Key) => key.name ?? "(unnamed)"

const keyStatus = (key: Key) => {
  if (key.revoked_at !== null) return badge("Revoked", "bad")
  if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) return badge("Expired", "bad")
  return badge("Active", "good")
}

/** A key's row: its name and id, its scopes, the page's own cells, its status, and the actions the page offers. */
export const keyRow = (key: Key, cells: ReadonlyArray<Node>, actions: ReadonlyArray<Node | string>) =>
  element(
    "tr",
    { "data-key-id": key.id },
    element("th", { scope: "row" }, keyName(key), element("br"), element("code", { class: "muted" }, key.id)),
    element("td", {}, key.scopes.join(", ")),
    ...cells,
    element("td", {}, keyStatus(key)),
    element("td", { class: "row-actions" }, ...actions)
  )

/** A `datetime-local` value (the browser's local time) as an instant; what is no date goes as typed, for the API to refuse. */
const localToIso = (value: string) => {
  if (value === "") return undefined
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toISOString()
}

/** The key form's fields as the API's body (the API checks them again). */
export const keyBody = (data: FormData): Schemas["KeyCreate"] => {
  const name = text(data, "name").trim()
  const expires = localToIso(text(data, "expires_at"))
  return {
    ...(name === "" ? {} : { name }),
    scopes: checked<Schemas["Scope"]>(data, "scopes"),
    ...(expires === undefined ? {} : { expires_at: expires }),
    allowed_ips: text(data, "allowed_ips")
      .split(/[\s,]+/)
      .filter((ip) => ip !== "")
  }
}

/** A key just made: shown this once, above the list drawn again with it. */
export const showCreatedKey = async (created: Schemas["CreatedKey"], reload: () => Promise<void>) => {
  const shown = reveal("new-key", created.key)
  await reload()
  shown.focus()
  say(`Key ${created.name ?? created.id} created. Copy it now: it is shown once.`)
}

/** Revokes a key (`revoke`, the page's call) once the person confirms, and draws the list again. */
export const revokeKey = async (key: Key, revoke: () => Promise<unknown>, reload: () => Promise<void>) => {
  const name = key.name ?? key.id
  if (!confirm(`Revoke the key ${name}? Every request with it is refused from now on.`)) return
  await revoke()
  await reload()
  say(`Key ${name} revoked.`)
  $("#keys-title").focus()
}
