/**
 * The admin API as the page calls it: `@crm/client`'s admin client with the token of this tab. The
 * token lives in this tab's sessionStorage only: never a cookie (no request carries it unasked),
 * never the URL (no history or log keeps it).
 */
import { type AdminClient, createAdminClient } from "@crm/client"

const TOKEN_ITEM = "crm-admin-token"

export const token = (): string | null => sessionStorage.getItem(TOKEN_ITEM)
export const keepToken = (given: string) => sessionStorage.setItem(TOKEN_ITEM, given)
export const forgetToken = () => sessionStorage.removeItem(TOKEN_ITEM)

let current: { readonly token: string; readonly client: AdminClient } | undefined

/** The client for the token this tab holds now (made again when another is kept). */
export const admin = (): AdminClient => {
  const given = token() ?? ""
  if (current?.token !== given) {
    const client = createAdminClient({
      baseUrl: location.origin,
      adminToken: given,
      // The operator asked for this one call: a refusal is shown at once, not waited out.
      retries: false,
      // Nothing the admin API answers is kept in the browser's cache.
      fetch: (request) => fetch(request, { cache: "no-store" })
    })
    current = { token: given, client }
  }
  return current.client
}
