/**
 * The settings page of an organisation's people: sign in (password, a mailed link, an invitation,
 * a password reset: the link's token comes in the URL's fragment, which no server log or Referer
 * holds, and is taken out of the address at once), then the console of their organisations. Every
 * call goes through `@crm/client`'s session clients; secrets the API shows once (a new key, a
 * hook's signing secret, an invitation's link) are shown once here too. Bundled for the browser by
 * scripts/bundlePages.ts.
 */
import { CrmError } from "@crm/client"
import { must, Refusal } from "../shared/calls.js"
import { $, say } from "../shared/dom.js"
import { text } from "../shared/forms.js"
import { wireCopyButtons } from "../shared/secrets.js"
import { auth, keepCsrf } from "./api.js"
import { makeConsole } from "./console.js"
import { act, explain, onSubmit, withForm } from "./forms.js"
import { reactions, type SessionInfo, state } from "./state.js"
import { showView } from "./views.js"

type LinkKind = "invitation" | "sign-in" | "reset"

/** The link's token from the fragment (`#invitation=...`), taken out of the address bar and history. */
const takeLink = (): { readonly kind: LinkKind; readonly token: string } | undefined => {
  const fragment = location.hash.slice(1)
  if (fragment === "") return undefined
  history.replaceState(null, "", `${location.pathname}${location.search}`)
  const found = /^(invitation|sign-in|reset)=([A-Za-z0-9_-]{1,200})$/.exec(fragment)
  return found === null ? undefined : { kind: found[1] as LinkKind, token: found[2]! }
}

/** The sign-in form, with a note above it (why the person is here), the focus on the note or the email field. */
const signedOut = (note?: string) => {
  keepCsrf(undefined)
  state.session = undefined
  state.organisation = undefined
  state.matrix = undefined
  showView("sign-in")
  const shown = $("#sign-in-note")
  shown.textContent = note ?? ""
  if (note === undefined) $("#sign-in-email").focus()
  else shown.focus()
}

const signOut = async (everywhere: boolean) => {
  await must(auth.POST("/sign-out", { body: { everywhere } }))
  signedOut(everywhere ? "You are signed out everywhere." : "You are signed out.")
}

const home = makeConsole(signOut)

const enter = async (info: SessionInfo, welcome?: string) => {
  $<HTMLFormElement>("#sign-in-form").reset()
  $("#sign-in-note").textContent = ""
  await home.enter(info)
  if (welcome !== undefined) say(welcome)
}

// A request begun before signing out may be refused after it: the person signed out, and the
// sign-in form keeps saying so.
reactions.sessionEnded = (note) => {
  if (state.session !== undefined) signedOut(note)
}
reactions.roleChanged = home.refresh

const signInForm = $<HTMLFormElement>("#sign-in-form")

const emailOf = (data: FormData) => {
  const email = text(data, "email").trim()
  if (email === "") throw new Refusal([{ path: "email", message: "Enter your email address." }])
  return email
}

onSubmit(signInForm, async (data) => {
  const email = emailOf(data)
  const password = text(data, "password")
  if (password === "") throw new Refusal([{ path: "password", message: "Enter your password." }])
  const info = await must(auth.POST("/sign-in", { body: { email, password } }))
  await enter(info, `Signed in as ${info.user.email}.`)
})

/** A mailed link asked for: the same answer whether or not the address has an account. */
const mailLink = (what: "sign-in" | "reset") =>
  withForm(signInForm, async (data) => {
    const email = emailOf(data)
    await must(
      what === "sign-in"
        ? auth.POST("/sign-in/link", { body: { email } })
        : auth.POST("/password-reset", { body: { email } })
    )
    const note = $("#sign-in-note")
    note.textContent = `If ${email} has an account, a ${what === "sign-in" ? "sign-in" : "password reset"} link is on its way to it. It works once, for 30 minutes.`
    note.focus()
  })

$("#send-sign-in-link").addEventListener("click", () => mailLink("sign-in"))
$("#send-reset-link").addEventListener("click", () => mailLink("reset"))

$("#sign-out").addEventListener("click", () => act("sessions", () => signOut(false)))

/** A new password as the form holds it; the server checks it again. */
const passwordOf = (data: FormData) => {
  const password = text(data, "password")
  if (password.length < 10) throw new Refusal([{ path: "password", message: "At least 10 characters." }])
  return password
}

/** The token of the invitation or reset link being used: in this variable only, until its form is sent. */
const opened = { invitation: "", reset: "" }

onSubmit($<HTMLFormElement>("#accept-form"), async (data) => {
  const name = text(data, "name").trim()
  if (name === "") throw new Refusal([{ path: "name", message: "Enter your name." }])
  const info = await must(
    auth.POST("/invitations/{token}/accept", {
      params: { path: { token: opened.invitation } },
      body: { name, password: passwordOf(data) }
    })
  )
  opened.invitation = ""
  await enter(info, `Welcome, ${info.user.name}. You are signed in.`)
})

onSubmit($<HTMLFormElement>("#reset-form"), async (data) => {
  const info = await must(
    auth.POST("/password-reset/complete", { body: { token: opened.reset, password: passwordOf(data) } })
  )
  opened.reset = ""
  await enter(info, "Your password is set. You are signed in.")
})

const openInvitation = (token: string) => {
  opened.invitation = token
  showView("accept")
  $("#accept-name").focus()
}

const openReset = (token: string) => {
  opened.reset = token
  showView("reset")
  $("#reset-password").focus()
}

/** A mailed sign-in link: used at once, as its one use. */
const useSignInLink = async (token: string) => {
  try {
    const info = await must(auth.POST("/sign-in/link/complete", { body: { token } }))
    await enter(info, `Signed in as ${info.user.email}.`)
  } catch (error) {
    signedOut(explain(error))
  }
}

/** The session this browser already has, if any. */
const resume = async () => {
  try {
    const info = await must(auth.GET("/session"))
    await enter(info)
  } catch (error) {
    if (error instanceof CrmError && error.code === "session_required") signedOut()
    else signedOut(explain(error))
  }
}

// A copy button's refusal is shown in the section it is in.
wireCopyButtons((button, action) => act(button.closest<HTMLElement>("section.panel")?.id ?? "keys", action))

/** What the address asks for: a link's form, or the session this browser has. */
const route = () => {
  const link = takeLink()
  if (link?.kind === "invitation") openInvitation(link.token)
  else if (link?.kind === "reset") openReset(link.token)
  else if (link?.kind === "sign-in") void useSignInLink(link.token)
  else void resume()
}

// A link opened in a tab that shows this page already changes only the fragment: no new load.
addEventListener("hashchange", () => {
  if (location.hash !== "") route()
})
route()
