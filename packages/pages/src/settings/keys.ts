/** The organisation's API keys: the list (who made each, when it was last used), a new key shown once, revoking one. */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, button, element, formatTime } from "../shared/dom.js"
import { clearIssues } from "../shared/forms.js"
import { keyBody, keyName, keyRow, revokeKey, showCreatedKey } from "../shared/keys.js"
import { conceal } from "../shared/secrets.js"
import { pagedTable } from "../shared/table.js"
import { settings } from "./api.js"
import { act, onSubmit } from "./forms.js"
import { madeBy, peopleNames } from "./names.js"
import { may, myId, organisationId, state } from "./state.js"

type Key = Schemas["KeySummary"]

const SECTION = "keys"

/**
 * Whether the person may revoke this key, or this connected app (a key of its person's, to the
 * server): any with `keys:manage_any`, their own with `keys:manage_own`.
 */
export const mayRevoke = (key: { readonly revoked_at: string | null; readonly created_by: string | null }) =>
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
    body: "#key-table tbody",
    more: "#keys-more",
    fetch: (query) =>
      must(settings.GET("/organisations/{id}/keys", { params: { path: { id: organisationId() }, query } })),
    row: (key) => row(key),
    columns: 6,
    empty: "No keys yet.",
    act: (load) => act(SECTION, load)
  })

  const row = (key: Key) => {
    const name = keyName(key)
    return keyRow(
      key,
      [
        element(
          "td",
          {},
          madeBy(names, key.created_by),
          element("br"),
          element("span", { class: "muted" }, formatTime(key.created_at))
        ),
        element("td", {}, key.last_used_at === null ? "Never" : formatTime(key.last_used_at))
      ],
      [
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
      ]
    )
  }

  const revoke = (key: Key) =>
    revokeKey(
      key,
      () =>
        must(
          settings.DELETE("/organisations/{id}/keys/{key_id}", {
            params: { path: { id: organisationId(), key_id: key.id } }
          })
        ),
      keyTable.reload
    )

  const form = $<HTMLFormElement>("#key-form")
  onSubmit(form, async (data) => {
    const created = await must(
      settings.POST("/organisations/{id}/keys", { params: { path: { id: organisationId() } }, body: keyBody(data) })
    )
    form.reset()
    // Folded away, so that the key shown once sits right under the section's heading.
    $<HTMLDetailsElement>("#key-create").open = false
    await showCreatedKey(created, keyTable.reload)
  })

  return {
    open: async () => {
      conceal("new-key")
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
