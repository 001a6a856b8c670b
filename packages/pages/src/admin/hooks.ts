/** A key's webhook subscriptions and a subscription's deliveries. */
import type { Schemas } from "@crm/client"
import { admin, must } from "./api.js"
import * as Chosen from "./chosen.js"
import { $, badge, button, element, formatTime, say } from "./dom.js"
import { act, checked, clearIssues, onSubmit, text } from "./forms.js"
import { pagedTable } from "./table.js"

type Hook = Schemas["Hook"]
type Delivery = Schemas["Delivery"]

export interface HooksSection {
  readonly open: (key: Schemas["KeySummary"]) => Promise<void>
}

const hookStatus = (hook: Hook) => {
  if (!hook.active) return badge(hook.disabled_reason ? `Disabled: ${hook.disabled_reason}` : "Disabled", "bad")
  if (hook.paused_until !== null) return badge(`Paused until ${formatTime(hook.paused_until)}`, "warn")
  return badge("Active", "good")
}

const TONES: Readonly<Record<Delivery["status"], string>> = { succeeded: "good", pending: "warn", failed: "bad" }

const lastAnswer = (delivery: Delivery) => {
  const last = delivery.attempts.at(-1)
  if (last === undefined) return "—"
  return last.status_code === null ? (last.error ?? "no answer") : `HTTP ${last.status_code} in ${last.duration_ms} ms`
}

/** A signing secret, shown this once: it is in no variable, and gone at the next render or reload. */
const showSecret = (secret: string, note: string) => {
  $("#new-secret-value").textContent = secret
  $("#new-secret-note").textContent = note
  const shown = $("#new-secret")
  shown.hidden = false
  shown.focus()
}

export const hooksSection = (): HooksSection => {
  const hookTable = pagedTable<Hook>({
    body: "#hook-table tbody",
    more: "#hooks-more",
    fetch: (query) => must(admin().GET("/keys/{id}/hooks", { params: { path: { id: Chosen.key().id }, query } })),
    row: (hook) => hookRow(hook),
    columns: 4,
    empty: "No subscriptions for this key."
  })

  const deliveryTable = pagedTable<Delivery>({
    body: "#delivery-table tbody",
    more: "#deliveries-more",
    fetch: (query) =>
      must(admin().GET("/hooks/{id}/deliveries", { params: { path: { id: Chosen.hook().id }, query } })),
    row: (delivery) => deliveryRow(delivery),
    columns: 6,
    empty: "No deliveries yet."
  })

  const hookRow = (hook: Hook) =>
    element(
      "tr",
      { "data-hook-id": hook.id },
      element("th", { scope: "row", class: "break" }, hook.target_url),
      element("td", {}, hook.events.join(", ")),
      element("td", {}, hookStatus(hook)),
      element(
        "td",
        { class: "row-actions" },
        button({ class: "quiet" }, () => act(() => openDeliveries(hook)), "Deliveries"),
        button({ class: "quiet" }, () => act(() => rotateSecret(hook)), "Rotate secret"),
        button({ class: "danger" }, () => act(() => deleteHook(hook)), "Delete")
      )
    )

  const deliveryRow = (delivery: Delivery) =>
    element(
      "tr",
      { "data-delivery-id": delivery.id },
      element("th", { scope: "row" }, delivery.event),
      element("td", {}, badge(delivery.status, TONES[delivery.status])),
      element("td", {}, String(delivery.attempt_count)),
      element("td", {}, lastAnswer(delivery)),
      element("td", {}, formatTime(delivery.created_at)),
      element(
        "td",
        { class: "row-actions" },
        button(
          { class: "quiet", "aria-label": `Redeliver ${delivery.event}` },
          () => act(() => redeliver(delivery)),
          "Redeliver"
        )
      )
    )

  const rotateSecret = async (hook: Hook) => {
    const rotated = await must(admin().POST("/hooks/{id}/rotate-secret", { params: { path: { id: hook.id } } }))
    showSecret(
      rotated.secret,
      `The new secret, shown this once. The previous one also signs deliveries until ${formatTime(rotated.previous_secret_expires_at)}.`
    )
    say("Secret rotated.")
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
    const hook = await must(
      admin().POST("/keys/{id}/hooks", {
        params: { path: { id: Chosen.key().id } },
        body: { target_url: text(data, "target_url").trim(), events: checked(data, "events") }
      })
    )
    form.reset()
    await hookTable.reload()
    showSecret(hook.secret, "Deliveries are signed with this secret. Copy it now: it is shown this once.")
    say(`Subscribed ${hook.target_url}.`)
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
      $("#new-secret").hidden = true
      $("#new-secret-value").textContent = ""
      $("#deliveries").hidden = true
      clearIssues(form)
      await hookTable.reload()
      $("#hooks-title").focus()
    }
  }
}
