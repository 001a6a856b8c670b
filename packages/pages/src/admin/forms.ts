/**
 * Every action of the page is a form or a button whose refusal is shown where it belongs: a 422's
 * issues next to the fields they name, anything else in the form's own slot or announced.
 */
import { CrmError } from "@crm/client"
import { type Issue, Refusal } from "./api.js"
import { element, say } from "./dom.js"
import { refusedToken } from "./session.js"

export const clearIssues = (form: HTMLFormElement) => {
  for (const slot of form.querySelectorAll("[data-error-for]")) slot.replaceChildren()
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid")
}

/** A `detail` as one line: the text it is, or the message it carries, or its JSON. */
export const describe = (detail: unknown): string => {
  if (typeof detail === "string") return detail
  if (typeof detail === "object" && detail !== null) {
    const { message } = detail as { readonly message?: unknown }
    if (typeof message === "string") return message
  }
  return JSON.stringify(detail)
}

/** A server's `ValidationIssue`, read as far as it is one. */
const issueOf = (value: unknown): Issue => {
  const { path, message } = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>
  return { path: typeof path === "string" ? path : "", message: String(message) }
}

const issuesOf = (error: unknown): ReadonlyArray<Issue> => {
  if (error instanceof Refusal) return error.issues
  if (error instanceof CrmError && Array.isArray(error.detail)) return error.detail.map(issueOf)
  return [{ path: "", message: error instanceof CrmError ? `${error.code}: ${describe(error.detail)}` : String(error) }]
}

/**
 * A 422's issues each go to the slot of the field their path starts with (`allowed_ips.1` →
 * allowed_ips); what names no field of the form, and any other refusal, to the form's own slot.
 */
const showIssues = (form: HTMLFormElement, error: unknown) => {
  if (refusedToken(error)) return
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
  // The first field refused, else the form's own slot (when it takes the focus), so that the refusal is read at once.
  const invalid = form.querySelector<HTMLElement>('[aria-invalid="true"]')
  if (invalid !== null) invalid.focus()
  else if (general?.hasAttribute("tabindex")) general.focus()
  say("The server refused the form; see the messages next to the fields.")
}

/** Runs a form's action with its button disabled, showing a refusal next to its fields. */
export const onSubmit = (form: HTMLFormElement, action: (data: FormData) => Promise<void>) =>
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')
    if (submit !== null) submit.disabled = true
    try {
      clearIssues(form)
      await action(new FormData(form))
    } catch (error) {
      showIssues(form, error)
    } finally {
      if (submit !== null) submit.disabled = false
    }
  })

/** Runs a button's action, announcing a refusal. */
export const act = async (action: () => Promise<void>) => {
  try {
    await action()
  } catch (error) {
    if (refusedToken(error)) return
    say(error instanceof CrmError ? `Refused: ${error.code}: ${describe(error.detail)}` : String(error))
  }
}

/** A field's text as the form holds it (an absent field reads as empty). */
export const text = (data: FormData, name: string) => String(data.get(name) ?? "")

/**
 * The checked values of a group of boxes. The page offers only what the API accepts (the server
 * writes the boxes from the kernel's own lists), and the API checks them again.
 */
export const checked = <Value extends string>(data: FormData, name: string) =>
  data.getAll(name).map(String) as Array<Value>
