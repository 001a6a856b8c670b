/**
 * The console of a signed-in person: the organisation switcher (their organisations, from the
 * session), the sections of the open organisation (what their role may do decides what is offered),
 * and moving between sections, the focus going to the section's heading.
 */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, element, say } from "../shared/dom.js"
import { auth, keepCsrf, settings } from "./api.js"
import { appsSection } from "./apps.js"
import { auditSection } from "./audit.js"
import { act, clearAlert } from "./forms.js"
import { hooksSection } from "./hooks.js"
import { keysSection } from "./keys.js"
import { peopleSection } from "./people.js"
import { pipelinesSection } from "./pipelines.js"
import { sessionsSection } from "./sessions.js"
import { type Action, may, type SessionInfo, state } from "./state.js"
import { showView } from "./views.js"

type SectionName = "keys" | "apps" | "hooks" | "pipelines" | "people" | "audit" | "sessions"

const SECTIONS: ReadonlyArray<SectionName> = ["keys", "apps", "hooks", "pipelines", "people", "audit", "sessions"]
/** Sections a role may not see at all; the rest every member sees, offering only what the role may do. */
const NEEDS: Partial<Record<SectionName, Action>> = { audit: "audit:read" }
/** Sections of the organisation, as against the person's own. */
const OF_ORGANISATION = new Set<SectionName>(["keys", "apps", "hooks", "pipelines", "people", "audit"])

/** The organisation chosen last in this browser (an id, no secret), opened first next time. */
const CHOSEN_ITEM = "crm-settings-organisation"

const ROLE_WORDS: Readonly<Record<string, string>> = {
  owner: "You are an owner here.",
  admin: "You are an admin here.",
  member: "You are a member here."
}

export interface Console {
  readonly enter: (info: SessionInfo) => Promise<void>
  /** The session and the role asked for again, the section redrawn where it is (the focus stays). */
  readonly refresh: () => Promise<void>
}

export const makeConsole = (signOut: (everywhere: boolean) => Promise<void>): Console => {
  let current: SectionName = "keys"

  const hooks = hooksSection()
  const keys = keysSection((key) => show("hooks", () => hooks.open(key)))
  const apps = appsSection()
  const pipelines = pipelinesSection()
  const people = peopleSection()
  const audit = auditSection()
  const sessions = sessionsSection(signOut)
  const opens: Record<SectionName, () => Promise<void>> = {
    keys: keys.open,
    apps: apps.open,
    hooks: () => hooks.open(),
    pipelines: pipelines.open,
    people: people.open,
    audit: audit.reload,
    sessions: sessions.open
  }

  const allowed = (name: SectionName) => {
    if (state.organisation === undefined) return !OF_ORGANISATION.has(name)
    const needed = NEEDS[name]
    return needed === undefined || may(needed)
  }

  /** Shows and hides what the role may do; the server checks every call again. */
  const permit = () => {
    for (const node of document.querySelectorAll<HTMLElement>("[data-needs]")) {
      node.hidden = !may(node.dataset.needs as Action)
    }
    for (const node of document.querySelectorAll<HTMLElement>("[data-lacks]")) {
      node.hidden = may(node.dataset.lacks as Action)
    }
    for (const link of document.querySelectorAll<HTMLButtonElement>(".section-link")) {
      link.hidden = !allowed(link.dataset.section as SectionName)
    }
    keys.permit()
    pipelines.permit()
    people.permit()
    const role = state.organisation?.role
    $("#organisation-role").textContent = role === undefined ? "" : (ROLE_WORDS[role] ?? "")
  }

  const show = async (name: SectionName, open: () => Promise<void> = opens[name], focus = true) => {
    const target = allowed(name) ? name : state.organisation === undefined ? "sessions" : "keys"
    current = target
    for (const section of SECTIONS) $(`#${section}`).hidden = section !== target
    $("#no-organisation").hidden = state.organisation !== undefined
    for (const link of document.querySelectorAll<HTMLElement>(".section-link")) {
      if (link.dataset.section === target) link.setAttribute("aria-current", "page")
      else link.removeAttribute("aria-current")
    }
    if (focus) {
      clearAlert(target)
      // What the status said was about the section left.
      $("#status").textContent = ""
    }
    await (target === name ? open() : opens[target]())
    // Redrawn in place, the focus stays where it was, unless the section it was in is gone.
    if (focus || target !== name) $(`#${target}-title`).focus()
  }

  const picker = $<HTMLSelectElement>("#organisation")

  const fillPicker = (info: SessionInfo) => {
    picker.replaceChildren(
      ...info.organisations.map((organisation) => element("option", { value: organisation.id }, organisation.name))
    )
    $<HTMLElement>(".switcher").hidden = info.organisations.length === 0
  }

  /** Opens an organisation of the person's: their role there and what it allows. */
  const openOrganisation = async (id: string | null) => {
    const organisations = state.session?.organisations ?? []
    const chosen = organisations.find((organisation) => organisation.id === id) ?? organisations[0]
    state.organisation = chosen
    state.matrix = undefined
    if (chosen !== undefined) {
      picker.value = chosen.id
      localStorage.setItem(CHOSEN_ITEM, chosen.id)
      const roles: Schemas["RoleMatrix"] = await must(
        settings.GET("/organisations/{id}/roles", { params: { path: { id: chosen.id } } })
      )
      state.matrix = roles.matrix
    }
    permit()
  }

  const keep = (info: SessionInfo) => {
    state.session = info
    keepCsrf(info.csrf_token)
    $("#who").textContent = `${info.user.name || info.user.email} (${info.user.email})`
    fillPicker(info)
  }

  picker.addEventListener("change", () =>
    act(current, async () => {
      await openOrganisation(picker.value)
      // The switcher keeps the focus: the section below is redrawn for the organisation chosen.
      await show(current, opens[current], false)
      say(`Opened ${state.organisation?.name ?? "the organisation"}.`)
    })
  )

  for (const link of document.querySelectorAll<HTMLButtonElement>(".section-link")) {
    const name = link.dataset.section as SectionName
    link.addEventListener("click", () => act(name, () => show(name)))
  }

  return {
    enter: async (info) => {
      keep(info)
      showView("console")
      await openOrganisation(localStorage.getItem(CHOSEN_ITEM))
      await show(state.organisation === undefined ? "sessions" : current)
    },
    refresh: async () => {
      keep(await must(auth.GET("/session")))
      await openOrganisation(state.organisation?.id ?? null)
      await show(current, opens[current], false)
    }
  }
}
