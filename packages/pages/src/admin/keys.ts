/** An organisation's API keys: the list, a new key (shown once) and revoking one. */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, button, element, formatTime } from "../shared/dom.js"
import { keyBody, keyName, keyRow, revokeKey, showCreatedKey } from "../shared/keys.js"
import { type PagedTable, pagedTable } from "../shared/table.js"
import { admin } from "./api.js"
import * as Chosen from "./chosen.js"
import { act, onSubmit } from "./forms.js"
import type { HooksSection } from "./hooks.js"

type Key = Schemas["KeySummary"]

export const keysSection = (hooks: HooksSection): PagedTable => {
  const keyTable = pagedTable<Key>({
    body: "#key-table tbody",
    more: "#keys-more",
    fetch: (query) =>
      must(admin().GET("/organisations/{id}/keys", { params: { path: { id: Chosen.organisation().id }, query } })),
    row: (key) => {
      const name = keyName(key)
      return keyRow(
        key,
        [
          element("td", {}, formatTime(key.expires_at)),
          element("td", {}, key.allowed_ips.length === 0 ? "any" : key.allowed_ips.join(", "))
        ],
        [
          button({ class: "quiet", "aria-label": `Webhooks of ${name}` }, () => act(() => hooks.open(key)), "Webhooks"),
          key.revoked_at === null
            ? button({ class: "danger", "aria-label": `Revoke ${name}` }, () => act(() => revoke(key)), "Revoke")
            : ""
        ]
      )
    },
    columns: 6,
    empty: "No keys yet.",
    act
  })

  const revoke = (key: Key) =>
    revokeKey(key, () => must(admin().DELETE("/keys/{id}", { params: { path: { id: key.id } } })), keyTable.reload)

  const form = $<HTMLFormElement>("#key-form")
  onSubmit(form, async (data) => {
    const created = await must(
      admin().POST("/organisations/{id}/keys", {
        params: { path: { id: Chosen.organisation().id } },
        body: keyBody(data)
      })
    )
    form.reset()
    await showCreatedKey(created, keyTable.reload)
  })

  return keyTable
}
