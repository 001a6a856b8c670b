/**
 * Webhook subscriptions, per key: the list, a new one (its signing secret shown once), turning one
 * off and on again, rotating its secret, deleting it, and a subscription's deliveries (redelivered
 * on demand). Reading needs only membership; changing needs `hooks:manage`.
 */
import type { Schemas } from "@crm/client"
import { $, badge, button, element, formatTime, say } from "../admin/dom.js"
import { must, settings } from "./api.js"
import { act, checked, clearIssues, onSubmit, text } from "./forms.js"
import { may, organisationId } from "./state.js"
import { pagedTable } from "./table.js"

type Key = Schemas["KeySummary"]
type Hook = Schemas["Hook"]
type Delivery = Schemas["Delivery"]

const SECTION = "hooks"

const hookStatus = (hook: Hook) => {
  if (!hook.active) return badge(hook.disabled_reason ? `Off: ${hook.disabled_reason}` : "Off", "bad")
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

const hideSecret = () => {
  $("#new-secret").hidden = true
  $("#new-secret-value").textContent = ""
}

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
    section: SECTION,
    body: "#hook-table tbody",
    more: "#hooks-more",
    fetch: (query) =>
      must(
        settings.GET("/organisations/{id}/keys/{key_id}/hooks", {
          params: { path: { id: organisationId(), key_id: keyId() }, query }
        })
      ),
    row: (hook) => hookRow(hook),
    columns: 4,
    empty: "No subscriptions for this key."
  })

  const deliveryTable = pagedTable<Delivery>({
    section: SECTION,
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
    row: (delivery) => deliveryRow(delivery),
    columns: 6,
    empty: "No deliveries yet."
  })

  const hookRow = (hook: Hook) => {
    const manage = may("hooks:manage")
    return element(
      "tr",
      { "data-hook-id": hook.id },
      element("th", { scope: "row", class: "break" }, hook.target_url),
      element("td", {}, hook.events.join(", ")),
      element("td", {}, hookStatus(hook)),
      element(
        "td",
        { class: "row-actions" },
        button(
          { class: "quiet", "aria-label": `Deliveries to ${hook.target_url}` },
          () => act(SECTION, () => openDeliveries(hook)),
          "Deliveries"
        ),
        ...(manage
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
      )
    )
  }

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
        may("hooks:manage")
          ? button(
              { class: "quiet", "aria-label": `Redeliver ${delivery.event}` },
              () => act(SECTION, () => redeliver(delivery)),
              "Redeliver"
            )
          : ""
      )
    )

  const path = (hook: Hook) => ({ params: { path: { id: organisationId(), hook_id: hook.id } } })

  const setActive = async (hook: Hook, active: boolean) => {
    await must(settings.PATCH("/organisations/{id}/hooks/{hook_id}", { ...path(hook), body: { active } }))
    await hookTable.reload()
    say(active ? `Deliveries to ${hook.target_url} are on again.` : `Deliveries to ${hook.target_url} are off.`)
  }

  const rotateSecret = async (hook: Hook) => {
    const rotated = await must(settings.POST("/organisations/{id}/hooks/{hook_id}/rotate-secret", path(hook)))
    showSecret(
      rotated.secret,
      `The new secret of ${hook.target_url}, shown this once. The previous one also signs deliveries until ${formatTime(rotated.previous_secret_expires_at)}.`
    )
    say("Secret rotated.")
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
        body: { target_url: text(data, "target_url").trim(), events: checked(data, "events") }
      })
    )
    form.reset()
    $<HTMLDetailsElement>("#hook-create").open = false
    await hookTable.reload()
    showSecret(made.secret, "Deliveries are signed with this secret. Copy it now: it is shown this once.")
    say(`Subscribed ${made.target_url}.`)
  })

  /** The chosen key's subscriptions, from the first page. */
  const showKey = async () => {
    hideSecret()
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
