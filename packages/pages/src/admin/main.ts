/**
 * The admin page's behaviour: every action is one call of the admin API (`/admin/v1`, through
 * `@crm/client`) with the operator's token, and its answer shown. Secrets the API shows once (a
 * new key, a hook's signing secret, an invitation's accept link) are shown once here too: they are kept in no variable and gone
 * at the next render or reload. Bundled for the browser by scripts/bundlePages.ts.
 */
import { CrmError } from "@crm/client"
import { must, Refusal } from "../shared/calls.js"
import { $, say } from "../shared/dom.js"
import { describe, text } from "../shared/forms.js"
import { wireCopyButtons } from "../shared/secrets.js"
import { admin, forgetToken, keepToken, token } from "./api.js"
import { act, onSubmit } from "./forms.js"
import { hooksSection } from "./hooks.js"
import { invitationSection } from "./invitations.js"
import { keysSection } from "./keys.js"
import { mailSection } from "./mail.js"
import { organisationsSection } from "./organisations.js"
import { wireRates } from "./rates.js"
import { showConsole, signOut } from "./session.js"

const mail = mailSection()
const organisations = organisationsSection({
  keys: keysSection(hooksSection()),
  mail,
  invitation: invitationSection(mail)
})
wireRates()

const enter = async () => {
  showConsole(true)
  await organisations.start()
  $("#organisation-name").focus()
}

/** Why a token was not taken, next to its field. */
const notTaken = (error: unknown) => {
  if (!(error instanceof CrmError)) return String(error)
  if (error.status === 401) return "That token is not the admin token."
  if (error.status === 404) return "The admin API is not enabled on this server (set CRM_ADMIN_TOKEN)."
  return error.detail === undefined || error.detail === null ? String(error) : describe(error.detail)
}

onSubmit($<HTMLFormElement>("#sign-in-form"), async (data) => {
  const given = text(data, "token").trim()
  if (given === "") throw new Refusal([{ path: "token", message: "Enter the admin token." }])
  keepToken(given)
  try {
    await must(admin().GET("/organisations", { params: { query: { limit: 1 } } }))
  } catch (error) {
    // Forgotten first, so that the refusal is the form's, not a session's end.
    forgetToken()
    throw new Refusal([{ path: "token", message: notTaken(error) }])
  }
  $<HTMLInputElement>("#token").value = ""
  await enter()
  say("Signed in.")
})

$("#sign-out").addEventListener("click", () => {
  signOut()
  say("Signed out.")
})

wireCopyButtons((_button, action) => act(action))

if (token() === null) {
  showConsole(false)
  $("#token").focus()
} else {
  act(enter)
}
