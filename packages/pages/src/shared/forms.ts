/**
 * Both pages' forms: sent with their buttons disabled, a refusal's issues shown next to the fields
 * they name (anything else in the form's own slot) and the focus taken there, and their fields
 * read. What a refusal means beyond its issues (the admin token refused, a session ended, a role
 * changed) is each page's own, in the `refused` it gives `formRunner`.
 */
import { CrmError } from "@crm/client"
import { type Issue, Refusal } from "./calls.js"
import { element } from "./dom.js"

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

/** A refusal's issues: the page's own, a 422's, or any other refusal in the page's words (`explain`), for the form's slot. */
export const issuesOf = (error: unknown, explain: (error: unknown) => string): ReadonlyArray<Issue> => {
  if (error instanceof Refusal) return error.issues
  if (error instanceof CrmError && error.code === "validation_failed" && Array.isArray(error.detail)) {
    return error.detail.map(issueOf)
  }
  return [{ path: "", message: explain(error) }]
}

/**
 * Each issue goes to the slot of the field its path starts with (`allowed_ips.1` → allowed_ips);
 * what names no field of the form to the form's own slot. The focus goes to the first field
 * refused, else to the form's slot where it takes the focus (`tabindex`), so that the refusal is
 * read at once; a document's issues listed in that slot are read there rather than in the document.
 */
export const showIssues = (form: HTMLFormElement, issues: ReadonlyArray<Issue>) => {
  clearIssues(form)
  const general = form.querySelector<HTMLElement>('[data-error-for=""]')
  const bySlot = new Map<HTMLElement | null, Array<Issue>>()
  for (const issue of issues) {
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
  const slotFocus = general?.hasAttribute("tabindex") === true
  const readInSlot = slotFocus && invalid instanceof HTMLTextAreaElement && bySlot.has(general)
  if (invalid !== null && !readInSlot) invalid.focus()
  else if (slotFocus) general?.focus()
}

export interface FormRunner {
  /** Runs an action on a form's fields with its buttons disabled, showing a refusal as the page does. */
  readonly withForm: (form: HTMLFormElement, action: (data: FormData) => Promise<void>) => Promise<void>
  /** The same, at each submit of the form. */
  readonly onSubmit: (form: HTMLFormElement, action: (data: FormData) => Promise<void>) => void
}

/** A page's forms, each refusal handed to `refused` (which shows it, with `showIssues` where it is the form's). */
export const formRunner = (refused: (form: HTMLFormElement, error: unknown) => void): FormRunner => {
  const withForm = async (form: HTMLFormElement, action: (data: FormData) => Promise<void>) => {
    const buttons = [...form.querySelectorAll<HTMLButtonElement>("button")]
    for (const button of buttons) button.disabled = true
    try {
      clearIssues(form)
      await action(new FormData(form))
    } catch (error) {
      refused(form, error)
    } finally {
      for (const button of buttons) button.disabled = false
    }
  }
  return {
    withForm,
    onSubmit: (form, action) =>
      form.addEventListener("submit", (event) => {
        event.preventDefault()
        void withForm(form, action)
      })
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

/** A field holding a JSON document, parsed: what is no JSON is refused next to it, as the server would. */
export const json = (data: FormData, name: string): unknown => {
  try {
    return JSON.parse(text(data, name))
  } catch (error) {
    throw new Refusal([{ path: "", message: `Not valid JSON: ${(error as Error).message}` }])
  }
}
