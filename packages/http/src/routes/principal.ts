import type { Access, Resource, Settings } from "@crm/core"

/** Key-guarded routes always run with a principal; the pipeline guarantees it before the handler. */
export const organisationOf = (principal: Access.Principal | undefined): Settings.Organisation => {
  if (principal === undefined) throw new Error("key-guarded route reached without a principal")
  return principal.organisation
}

export const actorOf = (principal: Access.Principal | undefined): Resource.Actor => ({
  keyId: principal?.key.id ?? null
})
