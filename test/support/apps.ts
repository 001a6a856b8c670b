/**
 * A connected app without the OAuth flow: what consenting makes (`Access.connectApp`), for a person
 * of the organisation, run against the server's own services.
 */
import { Access, Ids, Organisation } from "@crm/core"
import * as Effect from "effect/Effect"
import type { TestServer } from "./server.js"

export interface Connection {
  readonly clientId: string
  readonly clientName: string | null
  readonly scopes: ReadonlyArray<Access.Scope>
}

/** An app `person` (an account of the organisation) connected, as `Access.AppSummary`. */
export const connectApp = (
  server: TestServer,
  organisationId: string,
  person: { readonly userId: string; readonly email: string },
  connection: Connection
): Promise<Access.AppSummary> =>
  server.run(
    Effect.flatMap(Access.Access, (access) =>
      access.connectApp(
        Ids.brand(Organisation.OrganisationId, organisationId),
        { grantId: crypto.randomUUID(), ...connection },
        { kind: "user", id: person.userId, label: person.email, address: null }
      )
    )
  )
