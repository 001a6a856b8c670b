/** The organisation's API keys: the list (who made each, when it was last used), a new key shown once, revoking one. */
import type { Schemas } from "@crm/client"
import { $, badge, button, element, formatTime, say } from "../admin/dom.js"
import { must, settings } from "./api.js"
import { act, checked, clearIssues, onSubmit, text } from "./forms.js"
import { madeBy, peopleNames } from "./names.js"
import { may, myId, organisationId, state } from "./state.js"
import { pagedTable } from "./table.js"

type Key = Schemas["KeySummary"]

const SECTION = "keys"

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

/** Whether the person may revoke this key: any key with `keys:manage_any`, their own with `keys:manage_own`. */
const mayRevoke = (key: Key) =>
  key.revoked_at === null &&
  (may("keys:manage_any") || (key.created_by !== null && key.created_by === myId() && may("keys:manage_own")))

export interface KeysSection {
  readonly open: () => Promise<void>
  /** Offers the scopes the role may give: a member's key holds at most `read` and `write`. */
  readonly permit: () => void
}

export const keysSection = (openHooks: (key: Key) => Promise<void>): KeysSection => {
  let names: ReadonlyMap<string, string> = new Map()

  const keyTable = pagedTable<Key>({
    section: SECTION,
    body: "#key-table tbody",
    more: "#keys-more",
    fetch: (query) =>
      must(settings.GET("/organisations/{id}/keys", { params: { path: { id: organisationId() }, query } })),
    row: (key) => keyRow(key),
    columns: 6,
    empty: "No keys yet."
  })

  const keyRow = (key: Key) => {
    const name = key.name ?? "(unnamed)"
    return element(
      "tr",
      { "data-key-id": key.id },
      element("th", { scope: "row" }, name, element("br"), element("code", { class: "muted" }, key.id)),
      element("td", {}, key.scopes.join(", ")),
      element(
        "td",
        {},
        madeBy(names, key.created_by),
        element("br"),
        element("span", { class: "muted" }, formatTime(key.created_at))
      ),
      element("td", {}, key.last_used_at === null ? "Never" : formatTime(key.last_used_at)),
      element("td", {}, keyStatus(key)),
      element(
        "td",
        { class: "row-actions" },
        key.revoked_at === null
          ? button(
              { class: "quiet", "aria-label": `Webhooks of ${name}` },
              () => act(SECTION, () => openHooks(key)),
              "Webhooks"
            )
          : "",
        mayRevoke(key)
          ? button({ class: "danger", "aria-label": `Revoke ${name}` }, () => act(SECTION, () => revoke(key)), "Revoke")
          : ""
      )
    )
  }

  const revoke = async (key: Key) => {
    const name = key.name ?? key.id
    if (!confirm(`Revoke the key ${name}? Every request with it is refused from now on.`)) return
    await must(
      settings.DELETE("/organisations/{id}/keys/{key_id}", {
        params: { path: { id: organisationId(), key_id: key.id } }
      })
    )
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
      settings.POST("/organisations/{id}/keys", {
        params: { path: { id: organisationId() } },
        body: {
          ...(name === "" ? {} : { name }),
          scopes: checked<Schemas["Scope"]>(data, "scopes"),
          ...(expires === undefined ? {} : { expires_at: expires }),
          allowed_ips: ips
        }
      })
    )
    form.reset()
    // Folded away, so that the key shown once sits right under the section's heading.
    $<HTMLDetailsElement>("#key-create").open = false
    $("#new-key-value").textContent = created.key
    const shown = $("#new-key")
    shown.hidden = false
    await keyTable.reload()
    shown.focus()
    say(`Key ${created.name ?? created.id} created. Copy it now: it is shown once.`)
  })

  return {
    open: async () => {
      $("#new-key").hidden = true
      $("#new-key-value").textContent = ""
      clearIssues(form)
      // Names are a nicety: a list of keys is still shown when the people's list is refused.
      names = await peopleNames().catch(() => new Map())
      await keyTable.reload()
    },
    permit: () => {
      const member = state.organisation?.role === "member"
      for (const choice of document.querySelectorAll<HTMLElement>("#key-form .choices li")) {
        const offered = !member || choice.dataset.memberScope === "true"
        choice.hidden = !offered
        const box = choice.querySelector("input")
        if (box !== null) {
          box.disabled = !offered
          if (!offered) box.checked = false
        }
      }
    }
  }
}
