/** What both pages show and do with webhook subscriptions: their rows and their deliveries', a signing secret shown once, the form read for the API. */
import type { Schemas } from "@crm/client"
import { badge, element, formatTime, say } from "./dom.js"
import { checked, text } from "./forms.js"
import { reveal } from "./secrets.js"

type Hook = Schemas["Hook"]
type Delivery = Schemas["Delivery"]

/** `off` names a subscription that delivers nothing: "Disabled" where only the server stops one, "Off" where people turn it off too. */
const hookStatus = (hook: Hook, off: string) => {
  if (!hook.active) return badge(hook.disabled_reason ? `${off}: ${hook.disabled_reason}` : off, "bad")
  if (hook.paused_until !== null) return badge(`Paused until ${formatTime(hook.paused_until)}`, "warn")
  return badge("Active", "good")
}

export const hookRow = (hook: Hook, off: string, actions: ReadonlyArray<Node | string>) =>
  element(
    "tr",
    { "data-hook-id": hook.id },
    element("th", { scope: "row", class: "break" }, hook.target_url),
    element("td", {}, hook.events.join(", ")),
    element("td", {}, hookStatus(hook, off)),
    element("td", { class: "row-actions" }, ...actions)
  )

const TONES: Readonly<Record<Delivery["status"], string>> = { succeeded: "good", pending: "warn", failed: "bad" }

const lastAnswer = (delivery: Delivery) => {
  const last = delivery.attempts.at(-1)
  if (last === undefined) return "—"
  return last.status_code === null ? (last.error ?? "no answer") : `HTTP ${last.status_code} in ${last.duration_ms} ms`
}

export const deliveryRow = (delivery: Delivery, actions: ReadonlyArray<Node | string>) =>
  element(
    "tr",
    { "data-delivery-id": delivery.id },
    element("th", { scope: "row" }, delivery.event),
    element("td", {}, badge(delivery.status, TONES[delivery.status])),
    element("td", {}, String(delivery.attempt_count)),
    element("td", {}, lastAnswer(delivery)),
    element("td", {}, formatTime(delivery.created_at)),
    element("td", { class: "row-actions" }, ...actions)
  )

/** The hook form's fields as the API's body (the API checks them again). */
export const hookBody = (data: FormData): Schemas["HookCreate"] => ({
  target_url: text(data, "target_url").trim(),
  events: checked(data, "events")
})

/** A subscription just made: the list drawn again with it, its signing secret shown this once. */
export const showCreatedHook = async (made: Schemas["HookWithSecret"], reload: () => Promise<void>) => {
  await reload()
  reveal(
    "new-secret",
    made.secret,
    "Deliveries are signed with this secret. Copy it now: it is shown this once."
  ).focus()
  say(`Subscribed ${made.target_url}.`)
}

/** A secret just rotated (`which` names it), shown this once; the one it replaces signs deliveries for a while yet. */
export const showRotatedSecret = (rotated: Schemas["HookWithSecret"], which: string) => {
  reveal(
    "new-secret",
    rotated.secret,
    `${which}, shown this once. The previous one also signs deliveries until ${formatTime(rotated.previous_secret_expires_at)}.`
  ).focus()
  say("Secret rotated.")
}
