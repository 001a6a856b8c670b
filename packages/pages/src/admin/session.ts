/** Signed in (the console shown) or out (the token form shown), and a token refused mid-session. */
import { CrmError } from "@crm/client"
import { $, say } from "../shared/dom.js"
import { forgetToken, token } from "./api.js"
import { forget } from "./chosen.js"

export const showConsole = (signedIn: boolean) => {
  $("#sign-in").hidden = signedIn
  $("#console").hidden = !signedIn
  $("#sign-out").hidden = !signedIn
}

export const signOut = (message?: string) => {
  forgetToken()
  forget()
  showConsole(false)
  const field = $<HTMLInputElement>("#token")
  field.value = ""
  if (message !== undefined) {
    $("#token-error").textContent = message
    say(message)
  }
  field.focus()
}

/** A token refused mid-session (the server's token changed): back to the sign-in form. */
export const refusedToken = (error: unknown): boolean => {
  if (!(error instanceof CrmError) || error.status !== 401 || token() === null) return false
  signOut("The admin token was refused. Sign in again.")
  return true
}
