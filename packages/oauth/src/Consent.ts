/**
 * The consent screen: where the authorization server sends a person's browser to answer a
 * client's request. The person signs in with their CRM account (the session of `/settings`),
 * chooses one of their organisations and the scopes to give, capped by their role there as a key
 * they make would be, and sees which client asks, what it calls itself, and where the answer goes.
 * Allowing makes the grant and the app's key in one step (`People.connectApp`); then the provider
 * finishes the authorization and sends the browser back to the client with a code.
 *
 * Writes (signing in, the answer) are form posts of this page: refused when their `Origin` is
 * another site's, and the answer must carry the session's CSRF token, which another site cannot
 * read. The page may not be framed, so that no page can overlay the button.
 */
import type { IncomingMessage } from "node:http"
import { ServerResponse } from "node:http"
import { Access, People } from "@crm/core"
import { Auth, Authenticate, Edge } from "@crm/http"
import * as Effect from "effect/Effect"
import type Provider from "oidc-provider"

/** Where the provider sends a browser to be asked: `<CONSENT_PATH><interaction uid>`. */
export const CONSENT_PATH = "/oauth/consent/"
export interface ConsentOptions {
  readonly provider: Provider
  readonly resource: string
  readonly clientAddress: (incoming: IncomingMessage) => string
}

/** A form is a few fields: a longer body is not one of this page's. */
const MAX_FORM_BYTES = 16 * 1024

const text = Edge.escapeHtml

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2330}
main{max-width:32rem;margin:3rem auto;background:#fff;border:1px solid #dde1e7;border-radius:10px;padding:2rem}
h1{font-size:1.4rem;margin:0 0 1rem}dl{margin:0 0 1.25rem}dt{font-weight:600;margin-top:.5rem}dd{margin:0;overflow-wrap:anywhere}
label{display:block;margin:.4rem 0}input[type=email],input[type=password],select{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
fieldset{border:1px solid #dde1e7;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}button{font:inherit;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #8a94a6;background:#fff;cursor:pointer}
button.primary{background:#2456d3;border-color:#2456d3;color:#fff}.note{color:#5b6475;font-size:.9rem}.error{color:#b42318;font-weight:600}`

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>${text(title)}</title><style>${STYLE}</style></head><body><main><h1>${text(title)}</h1>${body}</main></body></html>`

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  // Not no-referrer: under it a browser sends `Origin: null` with the page's own form posts.
  "referrer-policy": "same-origin"
}

const html = (status: number, title: string, body: string): Edge.Answer => ({
  status,
  headers: HEADERS,
  body: page(title, body)
})

/** The error page of a request that cannot go back to its client. */
export const errorPage = (error: string, description: string | undefined): string =>
  page(
    "This request cannot be completed",
    `<p class="error">${text(error)}</p>${description === undefined ? "" : `<p>${text(description)}</p>`}` +
      `<p class="note">Start again from your assistant.</p>`
  )

const expired = html(
  400,
  "This request has ended",
  `<p>The request to connect an app was answered already, or waited too long.</p><p class="note">Start again from your assistant.</p>`
)

const seeOther = (location: string, cookie?: string): Edge.Answer => ({
  status: 303,
  headers: { location, "cache-control": "no-store", ...(cookie === undefined ? {} : { "set-cookie": cookie }) },
  body: ""
})

/** What the client asked for, as the screen shows it. */
interface Request {
  readonly uid: string
  readonly clientId: string
  readonly clientName: string | null
  readonly registeredByDocument: boolean
  readonly redirectTo: string
  readonly scopes: ReadonlyArray<Access.Scope>
}

const readForm = (incoming: IncomingMessage): Effect.Effect<URLSearchParams | undefined> =>
  Effect.async<URLSearchParams | undefined>((resume) => {
    const declared = Number(incoming.headers["content-length"] ?? "0")
    const type = incoming.headers["content-type"] ?? ""
    if (!type.startsWith("application/x-www-form-urlencoded") || declared > MAX_FORM_BYTES) {
      incoming.resume()
      return resume(Effect.succeed(undefined))
    }
    const chunks: Array<Buffer> = []
    let size = 0
    incoming.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_FORM_BYTES) chunks.push(chunk)
    })
    incoming.on("end", () =>
      resume(
        Effect.succeed(size > MAX_FORM_BYTES ? undefined : new URLSearchParams(Buffer.concat(chunks).toString("utf8")))
      )
    )
    incoming.on("error", () => resume(Effect.succeed(undefined)))
  })

export const consent = (
  options: ConsentOptions,
  incoming: IncomingMessage
): Effect.Effect<Edge.Answer, never, People.People | Access.Access> => {
  const { provider } = options
  const secure = new URL(provider.issuer).protocol === "https:"
  const client: People.Client = {
    address: options.clientAddress(incoming),
    device: Authenticate.deviceOf(incoming)
  }
  const path = (incoming.url ?? "/").split("?")[0]!
  const uid = path.slice(CONSENT_PATH.length)
  const self = `${CONSENT_PATH}${uid}`
  // The provider reads its interaction cookie off the request; the response it is given is not written.
  const response = new ServerResponse(incoming)

  const details: Effect.Effect<Request | undefined> = Effect.promise(async () => {
    try {
      const interaction = await provider.interactionDetails(incoming, response)
      if (interaction.uid !== uid) return undefined
      const clientId = String(interaction.params.client_id)
      const found = await provider.Client.find(clientId)
      if (found === undefined) return undefined
      const asked = String(interaction.params.scope ?? "").split(" ")
      return {
        uid,
        clientId,
        clientName: found.clientName ?? null,
        registeredByDocument: clientId.startsWith("https://"),
        redirectTo: String(interaction.params.redirect_uri),
        scopes: Access.SCOPES.filter((scope) => asked.includes(scope))
      }
    } catch {
      return undefined
    }
  })

  const signInForm = (request: Request, error?: string) =>
    html(
      error === undefined ? 200 : 400,
      "Sign in to connect an app",
      `${describe(request)}${error === undefined ? "" : `<p class="error">${text(error)}</p>`}` +
        `<form method="post" action="${self}"><input type="hidden" name="action" value="sign-in">` +
        `<label>Email <input type="email" name="email" required autocomplete="username"></label>` +
        `<label>Password <input type="password" name="password" required autocomplete="current-password"></label>` +
        `<div class="actions"><button class="primary" type="submit">Sign in</button></div></form>`
    )

  const consentForm = (request: Request, info: People.SessionInfo, error?: string) => {
    if (info.organisations.length === 0) {
      return html(403, "No organisation to connect", `<p>${text(info.user.email)} belongs to no organisation yet.</p>`)
    }
    const organisations = info.organisations
      .map((org) => `<option value="${text(org.id)}">${text(org.name)} (${org.role})</option>`)
      .join("")
    const members = info.organisations.filter((org) => org.role === "member").map((org) => org.name)
    const scopes =
      request.scopes.length === 0
        ? `<p class="error">The app asked for no scope this CRM has (read, write, ...): it can be given nothing.</p>`
        : request.scopes
            .map(
              (scope) =>
                `<label><input type="checkbox" name="scope" value="${scope}"${People.MEMBER_SCOPES.includes(scope) ? " checked" : ""}> ${scope}</label>`
            )
            .join("")
    return html(
      error === undefined ? 200 : 400,
      `Connect ${request.clientName ?? "an app"} to your CRM`,
      `${describe(request)}${error === undefined ? "" : `<p class="error">${text(error)}</p>`}` +
        `<p>Signed in as <strong>${text(info.user.email)}</strong>. The app will act as you, with what you give it here, until you revoke it under Settings, Connected apps.</p>` +
        `<form method="post" action="${self}"><input type="hidden" name="csrf_token" value="${text(info.csrf_token)}">` +
        `<label>Organisation <select name="organisation">${organisations}</select></label>` +
        `<fieldset><legend>It may</legend>${scopes}</fieldset>` +
        (members.length === 0
          ? ""
          : `<p class="note">As a member of ${text(members.join(", "))} you may give read and write only.</p>`) +
        `<div class="actions"><button class="primary" type="submit" name="action" value="allow"${request.scopes.length === 0 ? " disabled" : ""}>Allow</button>` +
        `<button type="submit" name="action" value="deny">Deny</button></div></form>`
    )
  }

  const sessionOf = Effect.flatMap(People.People, (people) =>
    people
      .authenticate(Authenticate.cookieValue(incoming.headers.cookie, Authenticate.SESSION_COOKIE), client.address)
      .pipe(Effect.option)
  )

  const show = (request: Request, error?: string) =>
    Effect.gen(function* () {
      const principal = yield* sessionOf
      if (principal._tag === "None") return signInForm(request)
      const people = yield* People.People
      const info = yield* people.sessionInfo(principal.value)
      return consentForm(request, info, error)
    })

  const finish = (result: Parameters<Provider["interactionResult"]>[2]) =>
    Effect.map(
      Effect.promise(() =>
        provider.interactionResult(incoming, response, result, { mergeWithLastSubmission: false }).then(
          (to) => to,
          () => undefined
        )
      ),
      (to) => (to === undefined ? expired : seeOther(to))
    )

  const answer = (request: Request, form: URLSearchParams) =>
    Effect.gen(function* () {
      const people = yield* People.People
      const action = form.get("action")
      if (action === "sign-in") {
        const signedIn = yield* people
          .signIn({ email: form.get("email") ?? "", password: form.get("password") ?? "" }, client)
          .pipe(Effect.either)
        if (signedIn._tag === "Left") {
          const error = signedIn.left
          return signInForm(
            request,
            error._tag === "RateLimited" ? error.detail : "The email or the password is not right."
          )
        }
        const cookie = Auth.sessionCookie(signedIn.right.token)
        return seeOther(self, secure ? `${cookie}; Secure` : cookie)
      }
      const principal = yield* sessionOf
      if (principal._tag === "None") return signInForm(request, "Your session has ended: sign in again.")
      if (!Authenticate.sameSecret(form.get("csrf_token") ?? "", principal.value.csrfToken)) {
        return html(403, "Refused", `<p class="error">This answer did not come from the consent screen.</p>`)
      }
      if (action === "deny") {
        return yield* finish({ error: "access_denied", error_description: "the person declined to connect the app" })
      }
      if (action !== "allow") return yield* show(request, "Choose Allow or Deny.")
      const scopes = request.scopes.filter((scope) => form.getAll("scope").includes(scope))
      if (scopes.length === 0) return yield* show(request, "Give the app at least one scope, or deny it.")
      const member = yield* people
        .enter(principal.value, (form.get("organisation") ?? "") as Parameters<typeof people.enter>[1])
        .pipe(Effect.option)
      if (member._tag === "None") return yield* show(request, "Choose one of your organisations.")
      const grant = new provider.Grant({ accountId: principal.value.account.id, clientId: request.clientId })
      // The scopes are the resource's and, as the provider lists them, its own too: granted and
      // refused as both, so that neither asks the person again.
      const refused = request.scopes.filter((scope) => !scopes.includes(scope))
      grant.addResourceScope(options.resource, scopes.join(" "))
      grant.addOIDCScope(scopes.join(" "))
      if (refused.length > 0) {
        grant.rejectResourceScope(options.resource, refused.join(" "))
        grant.rejectOIDCScope(refused.join(" "))
      }
      const grantId = yield* Effect.promise(() => grant.save())
      const connected = yield* people
        .connectApp(member.value, {
          grantId,
          clientId: request.clientId,
          clientName: request.clientName,
          scopes
        })
        .pipe(Effect.either)
      if (connected._tag === "Left") {
        yield* Effect.promise(() => grant.destroy())
        if (connected.left._tag === "ScopeNotAllowed") return yield* show(request, String(connected.left.detail))
        return yield* Effect.fail(connected.left)
      }
      return yield* finish({ login: { accountId: principal.value.account.id }, consent: { grantId } })
    })

  return Effect.gen(function* () {
    const method = incoming.method ?? "GET"
    if (method !== "GET" && method !== "POST") {
      return { status: 405, headers: { allow: "GET, POST" }, body: "" } satisfies Edge.Answer
    }
    if (method === "POST") {
      const origin = incoming.headers.origin
      if (origin !== undefined && origin !== new URL(provider.issuer).origin) {
        incoming.resume()
        return html(403, "Refused", `<p class="error">This answer came from another site.</p>`)
      }
    }
    const request = yield* details
    if (request === undefined) {
      if (method === "POST") incoming.resume()
      return expired
    }
    if (method === "GET") return yield* show(request)
    const form = yield* readForm(incoming)
    if (form === undefined) return html(400, "Refused", `<p class="error">This is not the consent screen's form.</p>`)
    return yield* answer(request, form)
  }).pipe(
    Effect.catchAll(() =>
      Effect.succeed(
        html(
          503,
          "Try again",
          `<p>The CRM could not answer just now.</p><p class="note">Reload the page in a moment.</p>`
        )
      )
    )
  )
}

const describe = (request: Request): string => {
  const to = URL.canParse(request.redirectTo) ? new URL(request.redirectTo) : undefined
  return (
    `<dl><dt>App</dt><dd>${text(request.clientName ?? "(no name given)")}</dd>` +
    `<dt>Client id</dt><dd>${text(request.clientId)}</dd>` +
    `<dt>Known by</dt><dd>${
      request.registeredByDocument
        ? `its metadata document, served at ${text(new URL(request.clientId).host)}`
        : "its own registration with this server: nothing verifies the name it gave"
    }</dd>` +
    `<dt>The answer goes to</dt><dd>${text(to === undefined ? request.redirectTo : `${to.protocol}//${to.host}`)}</dd>` +
    `<dt>It asks for</dt><dd>${request.scopes.length === 0 ? "nothing this CRM has" : text(request.scopes.join(", "))}</dd></dl>`
  )
}
