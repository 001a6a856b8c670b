/**
 * Every action of the page is a form or a button whose refusal is shown where it belongs and given
 * the focus: a 422's issues next to the fields they name, anything else in the form's own slot, or,
 * for a button, in its section's alert. A refusal says what it means for the person, not only its code.
 */
import { CrmError } from "@crm/client"
import { $ } from "../shared/dom.js"
import { describe, formRunner, issuesOf, showIssues } from "../shared/forms.js"
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

/** A refusal of a form: next to its fields, unless the session is over; the role asked for again when it changed. */
export const { withForm, onSubmit } = formRunner((form, error) => {
  if (sessionEnded(error)) return
  showIssues(form, issuesOf(error, explain))
  afterRefusal(error)
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
