/**
 * Webhook subscriptions, per key: the list, a new one (its signing secret shown once), turning one
 * off and on again, rotating its secret, deleting it, and a subscription's deliveries (redelivered
 * on demand). Reading needs only membership; changing needs `hooks:manage`.
 */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, button, element, say } from "../shared/dom.js"
import { clearIssues } from "../shared/forms.js"
import { deliveryRow, hookBody, hookRow, showCreatedHook, showRotatedSecret } from "../shared/hooks.js"
import { conceal } from "../shared/secrets.js"
import { pagedTable } from "../shared/table.js"
import { settings } from "./api.js"
import { act, onSubmit } from "./forms.js"
import { may, organisationId } from "./state.js"

type Key = Schemas["KeySummary"]
type Hook = Schemas["Hook"]
type Delivery = Schemas["Delivery"]

const SECTION = "hooks"

export interface HooksSection {
  /** The section for the key chosen before (or the first live one), or for `key` when given. */
  readonly open: (key?: Key) => Promise<void>
}

export const hooksSection = (): HooksSection => {
  const picker = $<HTMLSelectElement>("#hook-key")
  let hook: Hook | undefined

  const keyId = () => {
    if (picker.value === "") throw new Error("no key is chosen")
    return picker.value
  }

  const hookTable = pagedTable<Hook>({
    body: "#hook-table tbody",
    more: "#hooks-more",
    fetch: (query) =>
      must(
        settings.GET("/organisations/{id}/keys/{key_id}/hooks", {
          params: { path: { id: organisationId(), key_id: keyId() }, query }
        })
      ),
    row: (hook) => row(hook),
    columns: 4,
    empty: "No subscriptions for this key.",
    act: (load) => act(SECTION, load)
  })

  const deliveryTable = pagedTable<Delivery>({
    body: "#delivery-table tbody",
    more: "#deliveries-more",
    fetch: (query) => {
      if (hook === undefined) throw new Error("no subscription is open")
      return must(
        settings.GET("/organisations/{id}/hooks/{hook_id}/deliveries", {
          params: { path: { id: organisationId(), hook_id: hook.id }, query }
        })
      )
    },
    row: (delivery) =>
      deliveryRow(delivery, [
        may("hooks:manage")
          ? button(
              { class: "quiet", "aria-label": `Redeliver ${delivery.event}` },
              () => act(SECTION, () => redeliver(delivery)),
              "Redeliver"
            )
          : ""
      ]),
    columns: 6,
    empty: "No deliveries yet.",
    act: (load) => act(SECTION, load)
  })

  const row = (hook: Hook) =>
    hookRow(hook, "Off", [
      button(
        { class: "quiet", "aria-label": `Deliveries to ${hook.target_url}` },
        () => act(SECTION, () => openDeliveries(hook)),
        "Deliveries"
      ),
      ...(may("hooks:manage")
        ? [
            button(
              { class: "quiet", "aria-label": `${hook.active ? "Turn off" : "Turn on"} ${hook.target_url}` },
              () => act(SECTION, () => setActive(hook, !hook.active)),
              hook.active ? "Turn off" : "Turn on"
            ),
            button(
              { class: "quiet", "aria-label": `Rotate the secret of ${hook.target_url}` },
              () => act(SECTION, () => rotateSecret(hook)),
              "Rotate secret"
            ),
            button(
              { class: "danger", "aria-label": `Delete ${hook.target_url}` },
              () => act(SECTION, () => deleteHook(hook)),
              "Delete"
            )
          ]
        : [])
    ])

  const path = (hook: Hook) => ({ params: { path: { id: organisationId(), hook_id: hook.id } } })

  const setActive = async (hook: Hook, active: boolean) => {
    await must(settings.PATCH("/organisations/{id}/hooks/{hook_id}", { ...path(hook), body: { active } }))
    await hookTable.reload()
    say(active ? `Deliveries to ${hook.target_url} are on again.` : `Deliveries to ${hook.target_url} are off.`)
  }

  const rotateSecret = async (hook: Hook) => {
    const rotated = await must(settings.POST("/organisations/{id}/hooks/{hook_id}/rotate-secret", path(hook)))
    showRotatedSecret(rotated, `The new secret of ${hook.target_url}`)
  }

  const deleteHook = async (gone: Hook) => {
    if (!confirm(`Delete the subscription to ${gone.target_url} and its delivery history?`)) return
    await must(settings.DELETE("/organisations/{id}/hooks/{hook_id}", path(gone)))
    if (hook?.id === gone.id) closeDeliveries()
    await hookTable.reload()
    say("Subscription deleted.")
    $("#hooks-title").focus()
  }

  const openDeliveries = async (opened: Hook) => {
    hook = opened
    $("#deliveries").hidden = false
    $("#deliveries-title").textContent = `Deliveries to ${opened.target_url}`
    await deliveryTable.reload()
    $("#deliveries-title").focus()
  }

  const closeDeliveries = () => {
    hook = undefined
    $("#deliveries").hidden = true
  }

  const redeliver = async (delivery: Delivery) => {
    if (hook === undefined) return
    await must(
      settings.POST("/organisations/{id}/hooks/{hook_id}/deliveries/{delivery_id}/redeliver", {
        params: { path: { id: organisationId(), hook_id: hook.id, delivery_id: delivery.id } }
      })
    )
    await deliveryTable.reload()
    say(`Delivery of ${delivery.event} queued again.`)
  }

  const form = $<HTMLFormElement>("#hook-form")
  onSubmit(form, async (data) => {
    const made = await must(
      settings.POST("/organisations/{id}/keys/{key_id}/hooks", {
        params: { path: { id: organisationId(), key_id: keyId() } },
        body: hookBody(data)
      })
    )
    form.reset()
    $<HTMLDetailsElement>("#hook-create").open = false
    await showCreatedHook(made, hookTable.reload)
  })

  /** The chosen key's subscriptions, from the first page. */
  const showKey = async () => {
    conceal("new-secret")
    closeDeliveries()
    clearIssues(form)
    await hookTable.reload()
  }

  picker.addEventListener("change", () =>
    act(SECTION, async () => {
      await showKey()
      say(`Webhooks of ${picker.selectedOptions[0]?.textContent ?? "the key"}.`)
    })
  )

  $("#deliveries-refresh").addEventListener("click", () =>
    act(SECTION, async () => {
      await deliveryTable.reload()
      say("Deliveries refreshed.")
    })
  )

  return {
    open: async (key) => {
      const chosen = key?.id ?? picker.value
      const page = await must(
        settings.GET("/organisations/{id}/keys", {
          params: { path: { id: organisationId() }, query: { limit: 200 } }
        })
      )
      const live = page.data.filter((listed) => listed.revoked_at === null)
      picker.replaceChildren(
        ...live.map((listed) =>
          element("option", { value: listed.id }, `${listed.name ?? "(unnamed)"} (${listed.scopes.join(", ")})`)
        )
      )
      if (live.some((listed) => listed.id === chosen)) picker.value = chosen
      $("#hooks-no-key").hidden = live.length > 0
      $("#hooks-of-key").hidden = live.length === 0
      $<HTMLElement>(".key-pick").hidden = live.length === 0
      if (live.length > 0) await showKey()
    }
  }
}
