/**
 * What the operator has opened: an organisation, one of its keys (its webhooks shown), one of that
 * key's hooks (its deliveries shown). Secrets the API shows once (a new key, a hook's signing
 * secret) are never kept here: they are in the page until the next render or reload, and nowhere else.
 */
import type { Schemas } from "@crm/client"

interface Chosen {
  organisation: Schemas["Organisation"] | undefined
  key: Schemas["KeySummary"] | undefined
  hook: Schemas["Hook"] | undefined
}

export const chosen: Chosen = { organisation: undefined, key: undefined, hook: undefined }

/** The open one: a list or form of it is shown only while it is open. */
const open = <A>(what: string, value: A | undefined): A => {
  if (value === undefined) throw new Error(`no ${what} is open`)
  return value
}

export const organisation = () => open("organisation", chosen.organisation)
export const key = () => open("key", chosen.key)
export const hook = () => open("webhook subscription", chosen.hook)

export const forget = () => {
  chosen.organisation = undefined
  chosen.key = undefined
  chosen.hook = undefined
}
