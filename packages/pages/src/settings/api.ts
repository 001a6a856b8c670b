/**
 * The APIs as the page calls them: `@crm/client`'s session clients (`/auth/v1`, `/settings/v1`).
 * The session is the `crm_session` cookie, which the browser keeps and the page cannot read
 * (HttpOnly); the page holds only the session's CSRF token, in this variable, from the session's
 * answer, and sends it with every write. Reloaded, the page asks for it again (`GET /auth/v1/session`).
 */
import { type CrmError, createAuthClient, createSettingsClient } from "@crm/client"

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

/** A call's data, or its `CrmError` thrown to the form or button that made the call (forms.ts shows it). */
export const must = async <D>(
  call: Promise<{ data: D; error?: never } | { data?: never; error: CrmError }>
): Promise<D> => {
  const result = await call
  if (result.error !== undefined) throw result.error
  return result.data
}

export interface Issue {
  readonly path: string
  readonly message: string
}

/** A form refused by the page itself, shown as the server's `validation_failed` would be. */
export class Refusal extends Error {
  constructor(readonly issues: ReadonlyArray<Issue>) {
    super(issues.map((issue) => issue.message).join("; "))
  }
}
