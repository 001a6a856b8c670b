/** A key's webhook subscriptions and a subscription's deliveries. */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, button, say } from "../shared/dom.js"
import { clearIssues } from "../shared/forms.js"
import { deliveryRow, hookBody, hookRow, showCreatedHook, showRotatedSecret } from "../shared/hooks.js"
import { conceal } from "../shared/secrets.js"
import { pagedTable } from "../shared/table.js"
import { admin } from "./api.js"
import * as Chosen from "./chosen.js"
import { act, onSubmit } from "./forms.js"

type Hook = Schemas["Hook"]
type Delivery = Schemas["Delivery"]

export interface HooksSection {
  readonly open: (key: Schemas["KeySummary"]) => Promise<void>
}

export const hooksSection = (): HooksSection => {
  const hookTable = pagedTable<Hook>({
    body: "#hook-table tbody",
    more: "#hooks-more",
    fetch: (query) => must(admin().GET("/keys/{id}/hooks", { params: { path: { id: Chosen.key().id }, query } })),
    row: (hook) =>
      hookRow(hook, "Disabled", [
        button({ class: "quiet" }, () => act(() => openDeliveries(hook)), "Deliveries"),
        button({ class: "quiet" }, () => act(() => rotateSecret(hook)), "Rotate secret"),
        button({ class: "danger" }, () => act(() => deleteHook(hook)), "Delete")
      ]),
    columns: 4,
    empty: "No subscriptions for this key.",
    act
  })

  const deliveryTable = pagedTable<Delivery>({
    body: "#delivery-table tbody",
    more: "#deliveries-more",
    fetch: (query) =>
      must(admin().GET("/hooks/{id}/deliveries", { params: { path: { id: Chosen.hook().id }, query } })),
    row: (delivery) =>
      deliveryRow(delivery, [
        button(
          { class: "quiet", "aria-label": `Redeliver ${delivery.event}` },
          () => act(() => redeliver(delivery)),
          "Redeliver"
        )
      ]),
    columns: 6,
    empty: "No deliveries yet.",
    act
  })

  const rotateSecret = async (hook: Hook) => {
    const rotated = await must(admin().POST("/hooks/{id}/rotate-secret", { params: { path: { id: hook.id } } }))
    showRotatedSecret(rotated, "The new secret")
  }

  const deleteHook = async (hook: Hook) => {
    if (!confirm(`Delete the subscription to ${hook.target_url} and its delivery history?`)) return
    await must(admin().DELETE("/hooks/{id}", { params: { path: { id: hook.id } } }))
    if (Chosen.chosen.hook?.id === hook.id) {
      Chosen.chosen.hook = undefined
      $("#deliveries").hidden = true
    }
    await hookTable.reload()
    say("Subscription deleted.")
  }

  const openDeliveries = async (hook: Hook) => {
    Chosen.chosen.hook = hook
    $("#deliveries").hidden = false
    $("#deliveries-title").textContent = `Deliveries to ${hook.target_url}`
    await deliveryTable.reload()
    $("#deliveries-title").focus()
  }

  const redeliver = async (delivery: Delivery) => {
    await must(
      admin().POST("/hooks/{id}/deliveries/{delivery_id}/redeliver", {
        params: { path: { id: Chosen.hook().id, delivery_id: delivery.id } }
      })
    )
    await deliveryTable.reload()
    say(`Delivery of ${delivery.event} queued again.`)
  }

  const form = $<HTMLFormElement>("#hook-form")
  onSubmit(form, async (data) => {
    const made = await must(
      admin().POST("/keys/{id}/hooks", { params: { path: { id: Chosen.key().id } }, body: hookBody(data) })
    )
    form.reset()
    await showCreatedHook(made, hookTable.reload)
  })

  $("#deliveries-refresh").addEventListener("click", () =>
    act(async () => {
      await deliveryTable.reload()
      say("Deliveries refreshed.")
    })
  )

  return {
    open: async (key) => {
      Chosen.chosen.key = key
      Chosen.chosen.hook = undefined
      $("#hooks").hidden = false
      $("#hooks-title").textContent = `Webhooks of ${key.name ?? key.id}`
      conceal("new-secret")
      $("#deliveries").hidden = true
      clearIssues(form)
      await hookTable.reload()
      $("#hooks-title").focus()
    }
  }
}
