/**
 * The organisation's people: their roles (changed by owners and admins, an owner's only by an
 * owner), removing someone or leaving, inviting someone (the accept link shown, as it is mailed),
 * and the invitations still open.
 */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, badge, button, element, formatTime, say } from "../shared/dom.js"
import { clearIssues, text } from "../shared/forms.js"
import { conceal, reveal } from "../shared/secrets.js"
import { pagedTable } from "../shared/table.js"
import { settings } from "./api.js"
import { act, onSubmit } from "./forms.js"
import { may, myId, organisationId, type Role, reactions, state } from "./state.js"

type Member = Schemas["Member"]
type Invitation = Schemas["Invitation"]

const SECTION = "people"
const ROLES: ReadonlyArray<Role> = ["owner", "admin", "member"]
const ROLE_NAMES: Readonly<Record<Role, string>> = { owner: "Owner", admin: "Admin", member: "Member" }
const INVITATION_TONES: Readonly<Record<Invitation["status"], string>> = {
  pending: "warn",
  accepted: "good",
  revoked: "bad",
  expired: "bad"
}

const iAmOwner = () => state.organisation?.role === "owner"

/** Whether the person may change this one's role or remove them: an owner's only an owner. */
const manages = (member: Member) => may("people:invite") && (member.role !== "owner" || iAmOwner())

export interface PeopleSection {
  readonly open: () => Promise<void>
  /** Offers the owner role to owners alone. */
  readonly permit: () => void
}

export const peopleSection = (): PeopleSection => {
  const memberTable = pagedTable<Member>({
    body: "#member-table tbody",
    more: "#members-more",
    fetch: (query) =>
      must(settings.GET("/organisations/{id}/users", { params: { path: { id: organisationId() }, query } })),
    row: (member) => memberRow(member),
    columns: 5,
    empty: "No one yet.",
    act: (load) => act(SECTION, load)
  })

  const invitationTable = pagedTable<Invitation>({
    body: "#invitation-table tbody",
    more: "#invitations-more",
    fetch: (query) =>
      must(settings.GET("/organisations/{id}/invitations", { params: { path: { id: organisationId() }, query } })),
    row: (invitation) => invitationRow(invitation),
    columns: 6,
    empty: "No invitations.",
    act: (load) => act(SECTION, load)
  })

  const roleControl = (member: Member, name: string) => {
    if (!manages(member)) return badge(ROLE_NAMES[member.role], member.role === "owner" ? "good" : "neutral")
    const id = `role-${member.user_id}`
    const select = element(
      "select",
      { id, name: "role", class: "inline-select" },
      ...ROLES.filter((role) => role !== "owner" || iAmOwner()).map((role) =>
        element("option", { value: role, ...(role === member.role ? { selected: "" } : {}) }, ROLE_NAMES[role])
      )
    )
    return element(
      "div",
      { class: "role-change" },
      element("label", { for: id, class: "visually-hidden" }, `Role of ${name}`),
      select,
      button(
        { class: "quiet", "aria-label": `Change the role of ${name}` },
        () => act(SECTION, () => changeRole(member, select.value as Role)),
        "Change"
      )
    )
  }

  const memberRow = (member: Member) => {
    const self = member.user_id === myId()
    const name = member.name || member.email
    return element(
      "tr",
      { "data-user-id": member.user_id },
      element("th", { scope: "row" }, name, self ? element("span", { class: "muted" }, " (you)") : ""),
      element("td", { class: "break" }, member.email),
      element("td", {}, roleControl(member, name)),
      element("td", {}, formatTime(member.joined_at)),
      element(
        "td",
        { class: "row-actions" },
        self
          ? button(
              { class: "danger", "aria-label": "Leave this organisation" },
              () => act(SECTION, () => remove(member, true)),
              "Leave"
            )
          : manages(member)
            ? button(
                { class: "danger", "aria-label": `Remove ${name}` },
                () => act(SECTION, () => remove(member, false)),
                "Remove"
              )
            : ""
      )
    )
  }

  const invitationRow = (invitation: Invitation) =>
    element(
      "tr",
      { "data-invitation-id": invitation.id },
      element("th", { scope: "row", class: "break" }, invitation.email),
      element("td", {}, ROLE_NAMES[invitation.role]),
      element("td", { class: "break" }, invitation.invited_by),
      element("td", {}, formatTime(invitation.expires_at)),
      element("td", {}, badge(invitation.status, INVITATION_TONES[invitation.status])),
      element(
        "td",
        { class: "row-actions" },
        invitation.status === "pending" && (invitation.role !== "owner" || iAmOwner())
          ? button(
              { class: "danger", "aria-label": `Revoke the invitation of ${invitation.email}` },
              () => act(SECTION, () => revokeInvitation(invitation)),
              "Revoke"
            )
          : ""
      )
    )

  const changeRole = async (member: Member, role: Role) => {
    const name = member.name || member.email
    if (role === member.role) {
      say(`${name} is already ${ROLE_NAMES[role].toLowerCase()}.`)
      return
    }
    await must(
      settings.PATCH("/organisations/{id}/users/{user_id}", {
        params: { path: { id: organisationId(), user_id: member.user_id } },
        body: { role }
      })
    )
    // One's own role changed: what the page offers changes with it.
    if (member.user_id === myId()) await reactions.roleChanged()
    else await memberTable.reload()
    say(`${name} is now ${ROLE_NAMES[role].toLowerCase()}.`)
  }

  const remove = async (member: Member, self: boolean) => {
    const name = member.name || member.email
    const question = self
      ? "Leave this organisation? You lose access to it until someone invites you again."
      : `Remove ${name} from this organisation? Their sessions no longer reach it; the keys they made stay.`
    if (!confirm(question)) return
    await must(
      settings.DELETE("/organisations/{id}/users/{user_id}", {
        params: { path: { id: organisationId(), user_id: member.user_id } }
      })
    )
    if (self) {
      await reactions.roleChanged()
      say("You left the organisation.")
      return
    }
    await memberTable.reload()
    say(`${name} removed.`)
    $("#people-title").focus()
  }

  const revokeInvitation = async (invitation: Invitation) => {
    if (!confirm(`Revoke the invitation of ${invitation.email}? Its link stops working.`)) return
    await must(
      settings.DELETE("/organisations/{id}/invitations/{invitation_id}", {
        params: { path: { id: organisationId(), invitation_id: invitation.id } }
      })
    )
    await invitationTable.reload()
    say(`Invitation of ${invitation.email} revoked.`)
    $("#invitations-title").focus()
  }

  const form = $<HTMLFormElement>("#invite-form")
  onSubmit(form, async (data) => {
    const invitation = await must(
      settings.POST("/organisations/{id}/invitations", {
        params: { path: { id: organisationId() } },
        // The select offers the roles the API accepts.
        body: { email: text(data, "email").trim(), role: text(data, "role") as Role }
      })
    )
    form.reset()
    const shown = reveal(
      "new-invitation",
      invitation.accept_url,
      `We mailed this link to ${invitation.email}; you may also pass it on yourself. It works once, until ${formatTime(invitation.expires_at)}, and is not shown again.`
    )
    await invitationTable.reload()
    shown.focus()
    say(`Invitation sent to ${invitation.email}.`)
  })

  return {
    open: async () => {
      conceal("new-invitation")
      clearIssues(form)
      await Promise.all([memberTable.reload(), may("people:invite") ? invitationTable.reload() : undefined])
    },
    permit: () => {
      const owner = $<HTMLOptionElement>('#invite-role option[value="owner"]')
      owner.hidden = !iAmOwner()
      owner.disabled = !iAmOwner()
      if (!iAmOwner() && $<HTMLSelectElement>("#invite-role").value === "owner") {
        $<HTMLSelectElement>("#invite-role").value = "member"
      }
    }
  }
}
