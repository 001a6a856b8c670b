/**
 * Every action of the page is a form or a button whose refusal is shown where it belongs and given
 * the focus: a 422's issues next to the fields they name, anything else in the form's own slot, or,
 * for a button, in its section's alert. A refusal says what it means for the person, not only its code.
 */
import { CrmError } from "@crm/client"
import { $, element } from "../admin/dom.js"
import { type Issue, Refusal } from "./api.js"
import { reactions } from "./state.js"

/** What a refusal means, in words. */
const MEANINGS: Readonly<Record<string, string>> = {
  forbidden: "Your role in this organisation does not allow this.",
  owner_only: "Only an owner of this organisation can do this.",
  last_owner: "The organisation must keep at least one owner.",
  scope_not_allowed: "A member's key can have only the read and write scopes.",
  invalid_credentials: "That email and password do not match an account.",
  invalid_link: "This link has expired, was already used, or was revoked. Ask for a new one.",
  already_member: "That person already belongs to this organisation.",
  not_found: "It is no longer there: someone may have removed it. The list is shown again.",
  csrf_refused: "The request was refused as coming from another site. Reload the page and try again.",
  network_error: "The server could not be reached. Check the connection and try again."
}

/** Codes that mean the role changed under the page: the role is asked for again after showing them. */
const ROLE_REFUSALS = new Set(["forbidden", "owner_only", "scope_not_allowed", "not_found"])

/** A `detail` as one line: the text it is, or the message it carries, or its JSON. */
export const describe = (detail: unknown): string => {
  if (typeof detail === "string") return detail
  if (typeof detail === "object" && detail !== null) {
    const { message } = detail as { readonly message?: unknown }
    if (typeof message === "string") return message
  }
  return JSON.stringify(detail)
}

export const explain = (error: unknown): string => {
  if (!(error instanceof CrmError)) return String(error)
  if (error.code === "rate_limited") {
    return `Too many attempts. Try again in ${error.retryAfter === undefined ? "a while" : `${error.retryAfter} seconds`}.`
  }
  const meaning = MEANINGS[error.code]
  if (meaning !== undefined) return meaning
  return error.detail === undefined || error.detail === null
    ? `Refused: ${error.code}.`
    : `Refused: ${error.code}: ${describe(error.detail)}`
}

/** A session that ended while the page was open (signed out elsewhere, expired): back to the sign-in form. */
const sessionEnded = (error: unknown): boolean => {
  if (!(error instanceof CrmError) || error.code !== "session_required") return false
  reactions.sessionEnded("Your session has ended. Sign in again.")
  return true
}

const afterRefusal = (error: unknown) => {
  if (error instanceof CrmError && ROLE_REFUSALS.has(error.code)) void reactions.roleChanged().catch(() => undefined)
}

export const clearIssues = (form: HTMLFormElement) => {
  for (const slot of form.querySelectorAll("[data-error-for]")) slot.replaceChildren()
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid")
}

const issueOf = (value: unknown): Issue => {
  const { path, message } = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>
  return { path: typeof path === "string" ? path : "", message: String(message) }
}

const issuesOf = (error: unknown): ReadonlyArray<Issue> => {
  if (error instanceof Refusal) return error.issues
  if (error instanceof CrmError && error.code === "validation_failed" && Array.isArray(error.detail)) {
    return error.detail.map(issueOf)
  }
  return [{ path: "", message: explain(error) }]
}

/**
 * A 422's issues each go to the slot of the field their path starts with (`allowed_ips.1` →
 * allowed_ips); what names no field of the form, and any other refusal, to the form's own slot.
 * The focus goes to the first field refused, else to the form's slot.
 */
const showIssues = (form: HTMLFormElement, error: unknown) => {
  clearIssues(form)
  const general = form.querySelector<HTMLElement>('[data-error-for=""]')
  const bySlot = new Map<HTMLElement | null, Array<Issue>>()
  for (const issue of issuesOf(error)) {
    const field = issue.path.split(".")[0] ?? ""
    const slot = form.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(field)}"]`) ?? general
    const listed = bySlot.get(slot) ?? []
    listed.push(issue)
    bySlot.set(slot, listed)
    // The settings document's issues name paths inside the one field it has (`data-field`).
    const name = slot === general ? (general?.dataset.field ?? field) : field
    const input = name === "" ? null : form.querySelector(`[name="${CSS.escape(name)}"]`)
    input?.setAttribute("aria-invalid", "true")
  }
  for (const [slot, listed] of bySlot) {
    const items = listed.map((issue) =>
      element(
        "li",
        {},
        ...(issue.path !== "" && slot?.dataset.errorFor !== issue.path ? [element("code", {}, issue.path), " "] : []),
        issue.message
      )
    )
    slot?.replaceChildren(element("ul", { role: "list" }, ...items))
  }
  const invalid = form.querySelector<HTMLElement>('[aria-invalid="true"]')
  if (invalid !== null && !(invalid instanceof HTMLTextAreaElement && bySlot.has(general))) invalid.focus()
  else general?.focus()
}

/** Runs an action on a form's fields with its buttons disabled, showing a refusal next to its fields. */
export const withForm = async (form: HTMLFormElement, action: (data: FormData) => Promise<void>) => {
  const buttons = [...form.querySelectorAll<HTMLButtonElement>("button")]
  for (const button of buttons) button.disabled = true
  try {
    clearIssues(form)
    await action(new FormData(form))
  } catch (error) {
    if (sessionEnded(error)) return
    showIssues(form, error)
    afterRefusal(error)
  } finally {
    for (const button of buttons) button.disabled = false
  }
}

export const onSubmit = (form: HTMLFormElement, action: (data: FormData) => Promise<void>) =>
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    void withForm(form, action)
  })

/** A section's alert: shown with the refusal and given the focus, so that it is read at once. */
export const alertOf = (section: string) => $(`#${section} .alert`)

export const clearAlert = (section: string) => {
  const alert = alertOf(section)
  alert.hidden = true
  alert.textContent = ""
}

export const showAlert = (section: string, message: string) => {
  const alert = alertOf(section)
  alert.textContent = message
  alert.hidden = false
  alert.focus()
}

/** Runs a button's action in a section, showing a refusal in the section's alert. */
export const act = async (section: string, action: () => Promise<void>) => {
  clearAlert(section)
  try {
    await action()
  } catch (error) {
    if (sessionEnded(error)) return
    showAlert(section, explain(error))
    afterRefusal(error)
  }
}

/** A field's text as the form holds it (an absent field reads as empty). */
export const text = (data: FormData, name: string) => String(data.get(name) ?? "")

/** The checked values of a group of boxes (the page offers only what the API accepts; the API checks again). */
export const checked = <Value extends string>(data: FormData, name: string) =>
  data.getAll(name).map(String) as Array<Value>
