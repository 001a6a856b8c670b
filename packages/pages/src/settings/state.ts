/**
 * Who is signed in, the organisation open, and what their role there allows. The matrix is the
 * server's (`GET /settings/v1/organisations/{id}/roles`): the page offers what the role may do, and
 * the server checks every call again.
 */
import type { Schemas } from "@crm/client"

export type SessionInfo = Schemas["SessionInfo"]
export type Membership = SessionInfo["organisations"][number]
export type Role = Membership["role"]
export type Action = keyof Schemas["RoleMatrix"]["matrix"]

interface State {
  session: SessionInfo | undefined
  organisation: Membership | undefined
  matrix: Schemas["RoleMatrix"]["matrix"] | undefined
}

export const state: State = { session: undefined, organisation: undefined, matrix: undefined }

/** The open organisation's id: a section is shown only while one is open. */
export const organisationId = (): string => {
  if (state.organisation === undefined) throw new Error("no organisation is open")
  return state.organisation.id
}

export const may = (action: Action): boolean => {
  const role = state.organisation?.role
  return role !== undefined && state.matrix?.[action]?.[role] === true
}

export const myId = (): string | undefined => state.session?.user.id

/**
 * What main.ts does when a call says the session is over (the sign-in form again), or when the role
 * may have changed: refused for something shown, or the person changed their own (the session and
 * role are asked for again and the section redrawn). Set once at start, here so that no section
 * imports main.
 */
export const reactions = {
  sessionEnded: (_message: string): void => undefined,
  roleChanged: async (): Promise<void> => undefined
}
