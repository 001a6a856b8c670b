/**
 * An organisation's people for the black-box suites: an organisation with its owner signed in, and
 * more people joined by invitation, each in a browser of their own (`TestServer.person`).
 */
import type { People } from "@crm/core"
import { type Person, type TestServer, tokenOf } from "./server.js"

export const PASSWORD = "correct horse battery staple"

/** An address no other test uses: throttling and membership are per address. */
export const uniqueEmail = (who: string): string => `${who}-${crypto.randomUUID().slice(0, 8)}@example.com`

export interface Joined {
  readonly person: Person
  readonly email: string
  /** `SessionInfo` as accepting the invitation answered it. */
  readonly info: any
  readonly userId: string
}

/**
 * Someone invited into the organisation with a role (by the operator, or by `by` from the
 * settings) who accepts the invitation in a new browser, and so is signed in.
 */
export const join = async (
  server: TestServer,
  organisationId: string,
  role: People.Role,
  options: { readonly by?: Person; readonly email?: string; readonly name?: string } = {}
): Promise<Joined> => {
  const email = options.email ?? uniqueEmail(role)
  let token: string
  if (options.by === undefined) token = (await server.invite(organisationId, email, role)).token
  else {
    const created = await options.by.settings(organisationId).post("/invitations", { email, role })
    if (created.status !== 201) throw new Error(`invitation not created: ${created.status} ${created.text}`)
    token = tokenOf(created.body.accept_url, "invitation")
  }
  const person = server.person()
  const accepted = await person.accept(token, options.name ?? `A ${role}`, PASSWORD)
  if (accepted.status !== 200) throw new Error(`invitation not accepted: ${accepted.status} ${accepted.text}`)
  return { person, email, info: accepted.body, userId: accepted.body.user.id }
}

/** A new organisation whose owner (invited by the operator) is signed in. */
export const withOwner = async (
  server: TestServer,
  name = "People's org"
): Promise<Joined & { readonly organisation: any }> => {
  const created = await server.admin.post("/organisations", { name })
  if (created.status !== 201) throw new Error(`organisation not created: ${created.status} ${created.text}`)
  return { organisation: created.body, ...(await join(server, created.body.id, "owner")) }
}
