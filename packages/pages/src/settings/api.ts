/**
 * The APIs as the page calls them: `@crm/client`'s session clients (`/auth/v1`, `/settings/v1`).
 * The session is the `crm_session` cookie, which the browser keeps and the page cannot read
 * (HttpOnly); the page holds only the session's CSRF token, in this variable, from the session's
 * answer, and sends it with every write. Reloaded, the page asks for it again (`GET /auth/v1/session`).
 */
import { createAuthClient, createSettingsClient } from "@crm/client"

let csrf: string | undefined

/** The token of the session now open (from a sign-in's answer or `GET /auth/v1/session`); undefined once it ends. */
export const keepCsrf = (token: string | undefined) => {
  csrf = token
}

const options = {
  baseUrl: location.origin,
  // A person asked for this one call: a refusal is shown at once, not waited out.
  retries: false,
  // Nothing these APIs answer is kept in the browser's cache.
  fetch: (request: Request) => fetch(request, { cache: "no-store" }),
  csrfToken: () => csrf
} as const

export const auth = createAuthClient(options)
export const settings = createSettingsClient(options)
