import type { Access, Resource } from "@crm/core"

/** Who makes a change: the calling key. */
export const actorOf = (principal: Access.Principal): Resource.Actor => ({ keyId: principal.key.id })
