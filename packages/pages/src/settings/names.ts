/** The organisation's people by id, to name who made a key. */
import { must } from "../shared/calls.js"
import { settings } from "./api.js"
import { myId, organisationId } from "./state.js"

const ALL = 200

/** The people's names by their id: the first 200 people; a key made by someone further on shows its id. */
export const peopleNames = async (): Promise<ReadonlyMap<string, string>> => {
  const page = await must(
    settings.GET("/organisations/{id}/users", { params: { path: { id: organisationId() }, query: { limit: ALL } } })
  )
  return new Map(page.data.map((member) => [member.user_id, member.name || member.email]))
}

/** Who made a key, as the list shows it. */
export const madeBy = (names: ReadonlyMap<string, string>, createdBy: string | null) => {
  if (createdBy === null) return "The operator"
  if (createdBy === myId()) return "You"
  return names.get(createdBy) ?? createdBy
}
