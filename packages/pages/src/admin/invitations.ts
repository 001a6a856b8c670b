/**
 * Inviting a person into the open organisation (its first owner, typically). The accept link is
 * shown once, as a new key is: it is in the page until the organisation is opened again or the
 * page reloaded, and nowhere else; the API shows it to no one again.
 */
import { CrmError, type Schemas } from "@crm/client"
import { must, Refusal } from "../shared/calls.js"
import { $, formatTime, say } from "../shared/dom.js"
import { clearIssues, text } from "../shared/forms.js"
import { conceal, reveal } from "../shared/secrets.js"
import type { PagedTable } from "../shared/table.js"
import { admin } from "./api.js"
import * as Chosen from "./chosen.js"
import { onSubmit } from "./forms.js"

export interface InvitationSection {
  /** Forgets the link shown and the form's refusals, as another organisation is opened. */
  readonly clear: () => void
}

/** The mail table is reloaded after an invitation: the mail that carries the link is queued there. */
export const invitationSection = (mail: PagedTable): InvitationSection => {
  const form = $<HTMLFormElement>("#invite-form")

  onSubmit(form, async (data) => {
    const invitation = await must(
      admin().POST("/organisations/{id}/invitations", {
        params: { path: { id: Chosen.organisation().id } },
        // The select offers the roles the API accepts.
        body: { email: text(data, "email").trim(), role: text(data, "role") as Schemas["Role"] }
      })
    ).catch((error: unknown) => {
      // The refusal is about the address: shown next to it, in words, not as a code.
      if (error instanceof CrmError && error.code === "already_member") {
        throw new Refusal([{ path: "email", message: "That address already belongs to this organisation." }])
      }
      throw error
    })
    form.reset()
    const shown = reveal(
      "new-invitation",
      invitation.accept_url,
      `Invited ${invitation.email} as ${invitation.role}. The link is mailed to them; you may also pass it on yourself. It works once, until ${formatTime(invitation.expires_at)}, and is not shown again.`
    )
    await mail.reload()
    shown.focus()
    say(`Invitation for ${invitation.email} created. Copy the link now: it is shown once.`)
  })

  return {
    clear: () => {
      conceal("new-invitation")
      clearIssues(form)
    }
  }
}
