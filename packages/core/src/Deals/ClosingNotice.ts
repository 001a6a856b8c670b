/**
 * The mail a deal's owner gets when the deal closes (enters a won or lost stage): pure, so the
 * rule "only a known person with an address is told" is one function.
 */
import type { OutgoingMail } from "../Mail/MailSchemas.js"
import type { OrganisationSettings } from "../Organisation.js"
import type { Deal } from "./DealSchemas.js"
import type { Stage } from "./PipelineSchemas.js"

/** Nothing for an open stage, a deal without owner, or an owner who is not one of the organisation's users. */
export const closingNotice = (settings: OrganisationSettings, deal: Deal, stage: Stage): OutgoingMail | null => {
  if (stage.kind === "open" || deal.owner_id === null) return null
  const ownerId = deal.owner_id.toLowerCase()
  const owner = settings.users.find((user) => user.id.toLowerCase() === ownerId)
  if (owner === undefined || owner.email === "") return null
  const outcome = stage.kind === "won" ? "won" : "lost"
  const lines = [
    `Hello ${owner.name},`,
    "",
    `your deal "${deal.title}" was ${outcome}.`,
    "",
    `Deal: ${deal.title}`,
    `Value: ${deal.value === null ? "not set" : `${deal.value} ${deal.currency}`}`,
    `Stage: ${stage.name}`,
    ...(stage.kind === "lost" ? [`Lost reason: ${deal.lost_reason ?? "not given"}`] : [])
  ]
  return {
    to: owner.email,
    subject: `Deal ${outcome}: ${deal.title}`,
    body: `${lines.join("\n")}\n`
  }
}
