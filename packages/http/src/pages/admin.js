/**
 * The admin page's behaviour: every action is one call of the admin API (`/admin/v1`) with the
 * token as a Bearer credential, and its answer shown. The token lives in this tab's sessionStorage
 * only: never a cookie (no request carries it unasked), never the URL (no history or log keeps it).
 * Secrets the API shows once (a new key, a hook's signing secret) are shown once here too: they
 * are kept in no variable and gone at the next render or reload.
 */

const TOKEN_ITEM = "crm-admin-token"
const PAGE_SIZE = 50

const $ = (selector, root = document) => root.querySelector(selector)

const state = {
  organisation: undefined,
  key: undefined,
  hook: undefined,
  organisationOffset: 0
}

class ApiError extends Error {
  constructor(status, body) {
    super(typeof body?.detail === "string" ? body.detail : `the server answered ${status}`)
    this.status = status
    this.code = body?.error ?? "http_error"
    this.detail = body?.detail
  }
}

const token = () => sessionStorage.getItem(TOKEN_ITEM)

const api = async (method, path, body) => {
  const headers = { authorization: `Bearer ${token()}`, accept: "application/json" }
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(`/admin/v1${path}`, {
    method,
    headers,
    cache: "no-store",
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let parsed
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (!response.ok) throw new ApiError(response.status, parsed)
  return parsed
}

/** Announced to screen readers and shown at the top of the page. */
const say = (message) => {
  const status = $("#status")
  status.textContent = ""
  // A change a screen reader notices even when the same message comes twice.
  requestAnimationFrame(() => {
    status.textContent = message
  })
}

const formatTime = (iso) =>
  iso === null || iso === undefined
    ? "—"
    : new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso))

const element = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue
    if (name === "class") node.className = value
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value)
    else node.setAttribute(name, value === true ? "" : value)
  }
  for (const child of children) node.append(child)
  return node
}

const badge = (text, tone) => element("span", { class: `badge ${tone}` }, text)

// ---- Errors next to the fields they name ----

const clearIssues = (form) => {
  for (const slot of form.querySelectorAll("[data-error-for]")) slot.replaceChildren()
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid")
}

/**
 * A 422's issues each go to the slot of the field their path starts with (`allowed_ips.1` →
 * allowed_ips); what names no field of the form, and any other refusal, to the form's own slot.
 */
const showIssues = (form, error) => {
  if (refusedToken(error)) return
  clearIssues(form)
  const general = form.querySelector('[data-error-for=""]')
  const issues =
    error instanceof ApiError && Array.isArray(error.detail)
      ? error.detail
      : [{ path: "", message: error instanceof ApiError ? `${error.code}: ${describe(error.detail)}` : String(error) }]
  const bySlot = new Map()
  for (const issue of issues) {
    const field = String(issue.path ?? "").split(".")[0]
    const slot = form.querySelector(`[data-error-for="${CSS.escape(field)}"]`) ?? general
    if (!bySlot.has(slot)) bySlot.set(slot, [])
    bySlot.get(slot).push(issue)
    // The settings document's issues name paths inside the one field it has (`data-field`).
    const name = slot === general ? (general.dataset.field ?? field) : field
    const input = name === "" ? undefined : form.querySelector(`[name="${CSS.escape(name)}"]`)
    if (input) input.setAttribute("aria-invalid", "true")
  }
  for (const [slot, list] of bySlot) {
    const items = list.map((issue) =>
      element(
        "li",
        {},
        ...(issue.path && slot.dataset.errorFor !== issue.path ? [element("code", {}, issue.path), " "] : []),
        issue.message
      )
    )
    slot.replaceChildren(element("ul", { role: "list" }, ...items))
  }
  const first = form.querySelector('[aria-invalid="true"]')
  if (first) first.focus()
  say("The server refused the form; see the messages next to the fields.")
}

const describe = (detail) => {
  if (typeof detail === "string") return detail
  if (detail && typeof detail === "object" && typeof detail.message === "string") return detail.message
  return JSON.stringify(detail)
}

/** Runs a form's action with its button disabled, showing a refusal next to its fields. */
const onSubmit = (form, action) =>
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    const button = form.querySelector('button[type="submit"]')
    button.disabled = true
    try {
      clearIssues(form)
      await action(new FormData(form))
    } catch (error) {
      showIssues(form, error)
    } finally {
      button.disabled = false
    }
  })

/** Runs a button's action, announcing a refusal. */
const act = async (action) => {
  try {
    await action()
  } catch (error) {
    if (refusedToken(error)) return
    say(error instanceof ApiError ? `Refused: ${error.code}: ${describe(error.detail)}` : String(error))
  }
}

// ---- Sign in and out ----

/** A token refused mid-session (the server's token changed): back to the sign-in form. */
const refusedToken = (error) => {
  if (!(error instanceof ApiError) || error.status !== 401 || token() === null) return false
  signOut("The admin token was refused. Sign in again.")
  return true
}

const showConsole = (signedIn) => {
  $("#sign-in").hidden = signedIn
  $("#console").hidden = !signedIn
  $("#sign-out").hidden = !signedIn
}

const signOut = (message) => {
  sessionStorage.removeItem(TOKEN_ITEM)
  state.organisation = undefined
  state.key = undefined
  state.hook = undefined
  showConsole(false)
  $("#token").value = ""
  if (message) {
    $("#token-error").textContent = message
    say(message)
  }
  $("#token").focus()
}

onSubmit($("#sign-in-form"), async (data) => {
  const given = String(data.get("token") ?? "").trim()
  if (given === "") throw new ApiError(422, { detail: [{ path: "token", message: "Enter the admin token." }] })
  sessionStorage.setItem(TOKEN_ITEM, given)
  try {
    await api("GET", "/organisations?limit=1")
  } catch (error) {
    // Removed first, so that the refusal below is the form's, not a session's end.
    sessionStorage.removeItem(TOKEN_ITEM)
    const message =
      error instanceof ApiError && error.status === 401
        ? "That token is not the admin token."
        : error instanceof ApiError && error.status === 404
          ? "The admin API is not enabled on this server (set CRM_ADMIN_TOKEN)."
          : describe(error.detail ?? String(error))
    throw new ApiError(422, { detail: [{ path: "token", message }] })
  }
  $("#token").value = ""
  await enter()
  say("Signed in.")
})

$("#sign-out").addEventListener("click", () => {
  signOut()
  say("Signed out.")
})

const enter = async () => {
  showConsole(true)
  state.organisationOffset = 0
  $("#organisation-list").replaceChildren()
  await loadOrganisations()
  $("#organisation-name").focus()
}

const emptyRow = (columns, text) =>
  element("tr", { class: "empty-row" }, element("td", { colspan: String(columns) }, text))

/**
 * A table of an admin list, a page at a time: `reload` starts again from the first page, and the
 * "more" button appends the next one while the API says there is one.
 */
const pagedTable = ({ body, more, path, row, columns, empty }) => {
  let offset = 0
  // A reload supersedes the loads still in flight (the table opened, then a subscription made at
  // once reloads it): their answers are dropped, where appending them showed the rows twice.
  let generation = 0
  const load = async () => {
    const started = generation
    const page = await api("GET", `${path()}?limit=${PAGE_SIZE}&offset=${offset}`)
    if (started !== generation) return
    const rows = $(body)
    for (const item of page.data) rows.append(row(item))
    offset += page.data.length
    if (rows.children.length === 0) rows.append(emptyRow(columns, empty))
    $(more).hidden = !page.has_more
  }
  $(more).addEventListener("click", () => act(load))
  return {
    reload: async () => {
      generation++
      offset = 0
      $(body).replaceChildren()
      await load()
    }
  }
}

// ---- Organisations ----

const loadOrganisations = async () => {
  const page = await api("GET", `/organisations?limit=${PAGE_SIZE}&offset=${state.organisationOffset}`)
  const list = $("#organisation-list")
  for (const organisation of page.data) list.append(organisationItem(organisation))
  state.organisationOffset += page.data.length
  $("#organisations-more").hidden = !page.has_more
  markCurrentOrganisation()
}

const organisationItem = (organisation) =>
  element(
    "li",
    { class: "pick-row" },
    element(
      "button",
      {
        type: "button",
        class: "pick",
        "data-id": organisation.id,
        onclick: () => act(() => openOrganisation(organisation.id))
      },
      element("span", { class: "pick-name" }, organisation.name),
      element("span", { class: "pick-meta" }, `${organisation.default_currency} · ${organisation.timezone}`)
    )
  )

const markCurrentOrganisation = () => {
  for (const button of document.querySelectorAll("#organisation-list .pick")) {
    if (button.dataset.id === state.organisation?.id) button.setAttribute("aria-current", "true")
    else button.removeAttribute("aria-current")
  }
}

$("#organisations-more").addEventListener("click", () => act(loadOrganisations))

onSubmit($("#organisation-form"), async (data) => {
  const organisation = await api("POST", "/organisations", { name: String(data.get("name") ?? "") })
  $("#organisation-form").reset()
  $("#organisation-list").prepend(
    organisationItem({
      id: organisation.id,
      name: organisation.name,
      timezone: organisation.settings.timezone,
      default_currency: organisation.settings.default_currency
    })
  )
  state.organisationOffset++
  await openOrganisation(organisation.id, organisation)
  say(`Organisation ${organisation.name} created.`)
})

const openOrganisation = async (id, given) => {
  const organisation = given ?? (await api("GET", `/organisations/${id}`))
  state.organisation = organisation
  state.key = undefined
  state.hook = undefined
  markCurrentOrganisation()
  $("#organisation-empty").hidden = true
  $("#organisation-detail").hidden = false
  $("#hooks").hidden = true
  $("#new-key").hidden = true
  $("#new-key-value").textContent = ""
  showOrganisation(organisation)
  clearIssues($("#settings-form"))
  clearIssues($("#key-form"))
  await Promise.all([keyTable.reload(), mailTable.reload()])
  $("#organisation-title").focus()
}

const showOrganisation = (organisation) => {
  $("#organisation-title").textContent = organisation.name
  $("#organisation-id").textContent = organisation.id
  $("#organisation-timezone").textContent = organisation.settings.timezone
  $("#organisation-currency").textContent = organisation.settings.default_currency
  $("#settings").value = JSON.stringify(organisation.settings, null, 2)
  const button = document.querySelector(`#organisation-list .pick[data-id="${organisation.id}"] .pick-name`)
  if (button) button.textContent = organisation.name
}

onSubmit($("#settings-form"), async (data) => {
  let settings
  try {
    settings = JSON.parse(String(data.get("settings") ?? ""))
  } catch (error) {
    throw new ApiError(422, { detail: [{ path: "", message: `Not valid JSON: ${error.message}` }] })
  }
  const organisation = await api("PUT", `/organisations/${state.organisation.id}/settings`, settings)
  state.organisation = organisation
  showOrganisation(organisation)
  say("Settings saved.")
})

// ---- API keys ----

const keyTable = pagedTable({
  body: "#key-table tbody",
  more: "#keys-more",
  path: () => `/organisations/${state.organisation.id}/keys`,
  row: (key) => keyRow(key),
  columns: 6,
  empty: "No keys yet."
})

const keyStatus = (key) => {
  if (key.revoked_at !== null) return badge("Revoked", "bad")
  if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) return badge("Expired", "bad")
  return badge("Active", "good")
}

const keyRow = (key) => {
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
      element(
        "button",
        {
          type: "button",
          class: "quiet",
          onclick: () => act(() => openHooks(key)),
          "aria-label": `Webhooks of ${name}`
        },
        "Webhooks"
      ),
      live
        ? element(
            "button",
            {
              type: "button",
              class: "danger",
              "aria-label": `Revoke ${name}`,
              onclick: () => act(() => revokeKey(key))
            },
            "Revoke"
          )
        : ""
    )
  )
}

const revokeKey = async (key) => {
  const name = key.name ?? key.id
  if (!confirm(`Revoke the key ${name}? Every request with it is refused from now on.`)) return
  await api("DELETE", `/keys/${key.id}`)
  await keyTable.reload()
  say(`Key ${name} revoked.`)
  $("#keys-title").focus()
}

const localToIso = (value) => {
  if (value === "") return undefined
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toISOString()
}

onSubmit($("#key-form"), async (data) => {
  const name = String(data.get("name") ?? "").trim()
  const expires = localToIso(String(data.get("expires_at") ?? ""))
  const ips = String(data.get("allowed_ips") ?? "")
    .split(/[\s,]+/)
    .filter((ip) => ip !== "")
  const created = await api("POST", `/organisations/${state.organisation.id}/keys`, {
    ...(name === "" ? {} : { name }),
    scopes: data.getAll("scopes").map(String),
    ...(expires === undefined ? {} : { expires_at: expires }),
    allowed_ips: ips
  })
  $("#key-form").reset()
  $("#new-key-value").textContent = created.key
  $("#new-key").hidden = false
  await keyTable.reload()
  $("#new-key").focus()
  say(`Key ${created.name ?? created.id} created. Copy it now: it is shown once.`)
})

// The clipboard API exists only in a secure context (https, or this machine): elsewhere the text is
// selected for the keyboard's copy.
for (const button of document.querySelectorAll("[data-copy]")) {
  button.addEventListener("click", () =>
    act(async () => {
      const source = $(`#${button.dataset.copy}`)
      if (navigator.clipboard !== undefined) {
        await navigator.clipboard.writeText(source.textContent)
        say("Copied to the clipboard.")
        return
      }
      const range = document.createRange()
      range.selectNodeContents(source)
      getSelection().removeAllRanges()
      getSelection().addRange(range)
      say("Selected: press Ctrl+C (or ⌘C) to copy it.")
    })
  )
}

// ---- Webhooks of a key ----

const openHooks = async (key) => {
  state.key = key
  state.hook = undefined
  $("#hooks").hidden = false
  $("#hooks-title").textContent = `Webhooks of ${key.name ?? key.id}`
  $("#new-secret").hidden = true
  $("#new-secret-value").textContent = ""
  $("#deliveries").hidden = true
  clearIssues($("#hook-form"))
  await hookTable.reload()
  $("#hooks-title").focus()
}

const hookTable = pagedTable({
  body: "#hook-table tbody",
  more: "#hooks-more",
  path: () => `/keys/${state.key.id}/hooks`,
  row: (hook) => hookRow(hook),
  columns: 4,
  empty: "No subscriptions for this key."
})

const hookStatus = (hook) => {
  if (!hook.active) return badge(hook.disabled_reason ? `Disabled: ${hook.disabled_reason}` : "Disabled", "bad")
  if (hook.paused_until !== null) return badge(`Paused until ${formatTime(hook.paused_until)}`, "warn")
  return badge("Active", "good")
}

const hookRow = (hook) =>
  element(
    "tr",
    { "data-hook-id": hook.id },
    element("th", { scope: "row", class: "break" }, hook.target_url),
    element("td", {}, hook.events.join(", ")),
    element("td", {}, hookStatus(hook)),
    element(
      "td",
      { class: "row-actions" },
      element(
        "button",
        { type: "button", class: "quiet", onclick: () => act(() => openDeliveries(hook)) },
        "Deliveries"
      ),
      element(
        "button",
        { type: "button", class: "quiet", onclick: () => act(() => rotateSecret(hook)) },
        "Rotate secret"
      ),
      element("button", { type: "button", class: "danger", onclick: () => act(() => deleteHook(hook)) }, "Delete")
    )
  )

const showSecret = (secret, note) => {
  $("#new-secret-value").textContent = secret
  $("#new-secret-note").textContent = note
  $("#new-secret").hidden = false
  $("#new-secret").focus()
}

onSubmit($("#hook-form"), async (data) => {
  const hook = await api("POST", `/keys/${state.key.id}/hooks`, {
    target_url: String(data.get("target_url") ?? "").trim(),
    events: data.getAll("events").map(String)
  })
  $("#hook-form").reset()
  await hookTable.reload()
  showSecret(hook.secret, "Deliveries are signed with this secret. Copy it now: it is shown this once.")
  say(`Subscribed ${hook.target_url}.`)
})

const rotateSecret = async (hook) => {
  const rotated = await api("POST", `/hooks/${hook.id}/rotate-secret`)
  showSecret(
    rotated.secret,
    `The new secret, shown this once. The previous one also signs deliveries until ${formatTime(rotated.previous_secret_expires_at)}.`
  )
  say("Secret rotated.")
}

const deleteHook = async (hook) => {
  if (!confirm(`Delete the subscription to ${hook.target_url} and its delivery history?`)) return
  await api("DELETE", `/hooks/${hook.id}`)
  if (state.hook?.id === hook.id) {
    state.hook = undefined
    $("#deliveries").hidden = true
  }
  await hookTable.reload()
  say("Subscription deleted.")
}

const openDeliveries = async (hook) => {
  state.hook = hook
  $("#deliveries").hidden = false
  $("#deliveries-title").textContent = `Deliveries to ${hook.target_url}`
  await deliveryTable.reload()
  $("#deliveries-title").focus()
}

const deliveryTable = pagedTable({
  body: "#delivery-table tbody",
  more: "#deliveries-more",
  path: () => `/hooks/${state.hook.id}/deliveries`,
  row: (delivery) => deliveryRow(delivery),
  columns: 6,
  empty: "No deliveries yet."
})

$("#deliveries-refresh").addEventListener("click", () =>
  act(async () => {
    await deliveryTable.reload()
    say("Deliveries refreshed.")
  })
)

const TONES = { succeeded: "good", pending: "warn", failed: "bad" }

const lastAnswer = (delivery) => {
  const last = delivery.attempts.at(-1)
  if (last === undefined) return "—"
  return last.status_code === null ? (last.error ?? "no answer") : `HTTP ${last.status_code} in ${last.duration_ms} ms`
}

const deliveryRow = (delivery) =>
  element(
    "tr",
    { "data-delivery-id": delivery.id },
    element("th", { scope: "row" }, delivery.event),
    element("td", {}, badge(delivery.status, TONES[delivery.status] ?? "")),
    element("td", {}, String(delivery.attempt_count)),
    element("td", {}, lastAnswer(delivery)),
    element("td", {}, formatTime(delivery.created_at)),
    element(
      "td",
      { class: "row-actions" },
      element(
        "button",
        {
          type: "button",
          class: "quiet",
          "aria-label": `Redeliver ${delivery.event}`,
          onclick: () => act(() => redeliver(delivery))
        },
        "Redeliver"
      )
    )
  )

const redeliver = async (delivery) => {
  await api("POST", `/hooks/${state.hook.id}/deliveries/${delivery.id}/redeliver`)
  await deliveryTable.reload()
  say(`Delivery of ${delivery.event} queued again.`)
}

// ---- Outgoing mail ----

const mailTable = pagedTable({
  body: "#mail-table tbody",
  more: "#mail-more",
  path: () => `/organisations/${state.organisation.id}/mail`,
  row: (message) =>
    element(
      "tr",
      {},
      element("td", { class: "break" }, message.to),
      element("th", { scope: "row" }, message.subject),
      element("td", {}, badge(message.status, { sent: "good", queued: "warn", failed: "bad" }[message.status] ?? "")),
      element("td", {}, String(message.attempts)),
      element("td", { class: "break" }, message.last_error ?? "—"),
      element("td", {}, formatTime(message.created_at))
    ),
  columns: 6,
  empty: "No mail sent yet."
})
$("#mail-refresh").addEventListener("click", () =>
  act(async () => {
    await mailTable.reload()
    say("Mail refreshed.")
  })
)

// ---- Exchange rates ----

onSubmit($("#rates-form"), async (data) => {
  const result = await api("POST", "/exchange-rates", {
    format: String(data.get("format")),
    text: String(data.get("text") ?? "")
  })
  $("#rates-text").value = ""
  say(`Imported ${result.imported} exchange rates.`)
})

// ---- Start ----

if (token() === null) {
  showConsole(false)
  $("#token").focus()
} else {
  act(enter)
}
