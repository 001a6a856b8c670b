/**
 * Every action of the page is a form or a button whose refusal is shown where it belongs: a 422's
 * issues next to the fields they name, anything else in the form's own slot or announced. A token
 * refused mid-session ends the session instead.
 */
import { CrmError } from "@crm/client"
import { say } from "../shared/dom.js"
import { describe, formRunner, issuesOf, showIssues } from "../shared/forms.js"
import { refusedToken } from "./session.js"

const explain = (error: unknown) =>
  error instanceof CrmError ? `${error.code}: ${describe(error.detail)}` : String(error)

/** Runs a form's action with its buttons disabled, showing a refusal next to its fields. */
export const { onSubmit } = formRunner((form, error) => {
  if (refusedToken(error)) return
  showIssues(form, issuesOf(error, explain))
  say("The server refused the form; see the messages next to the fields.")
})

/** Runs a button's action, announcing a refusal. */
export const act = async (action: () => Promise<void>) => {
  try {
    await action()
  } catch (error) {
    if (refusedToken(error)) return
    say(error instanceof CrmError ? `Refused: ${explain(error)}` : String(error))
  }
}
