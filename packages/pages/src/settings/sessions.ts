/** The signed-in person's own sessions: where, since when, last used; ending one, or all. */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, badge, button, element, formatTime, say } from "../shared/dom.js"
import { auth } from "./api.js"
import { act } from "./forms.js"

type Session = Schemas["SessionView"]

const SECTION = "sessions"

const BROWSERS: ReadonlyArray<readonly [string, string]> = [
  ["Edg/", "Edge"],
  ["OPR/", "Opera"],
  ["Firefox/", "Firefox"],
  ["Chrome/", "Chrome"],
  ["Safari/", "Safari"]
]

const SYSTEMS: ReadonlyArray<readonly [string, string]> = [
  ["Windows", "Windows"],
  ["Android", "Android"],
  ["iPhone", "iPhone"],
  ["iPad", "iPad"],
  ["Mac OS X", "macOS"],
  ["CrOS", "ChromeOS"],
  ["Linux", "Linux"]
]

/**
 * A User-Agent as a person names their device: the browser and the system, where they can be
 * told; anything else (a script's client) as it named itself.
 */
export const deviceName = (agent: string | null) => {
  if (agent === null || agent.trim() === "") return "Unknown device"
  const browser = BROWSERS.find(([mark]) => agent.includes(mark))?.[1]
  if (browser === undefined) return agent.length > 60 ? `${agent.slice(0, 59)}…` : agent
  const system = SYSTEMS.find(([mark]) => agent.includes(mark))?.[1]
  return system === undefined ? browser : `${browser} on ${system}`
}

export interface SessionsSection {
  readonly open: () => Promise<void>
}

export const sessionsSection = (signOut: (everywhere: boolean) => Promise<void>): SessionsSection => {
  const row = (session: Session) =>
    element(
      "tr",
      { "data-session-id": session.id },
      element(
        "th",
        { scope: "row", title: session.device ?? "" },
        deviceName(session.device),
        ...(session.current ? [" ", badge("This session", "good")] : [])
      ),
      element("td", {}, session.address ?? "—"),
      element("td", {}, formatTime(session.created_at)),
      element("td", {}, formatTime(session.last_used_at)),
      element("td", {}, formatTime(session.expires_at)),
      element(
        "td",
        { class: "row-actions" },
        session.current
          ? button({ class: "quiet" }, () => act(SECTION, () => signOut(false)), "Sign out")
          : button(
              {
                class: "danger",
                "aria-label": `End the session of ${deviceName(session.device)} since ${formatTime(session.created_at)}`
              },
              () => act(SECTION, () => revoke(session)),
              "End session"
            )
      )
    )

  const load = async () => {
    const list = await must(auth.GET("/sessions"))
    $("#session-table tbody").replaceChildren(...list.data.map(row))
  }

  const revoke = async (session: Session) => {
    await must(auth.DELETE("/sessions/{id}", { params: { path: { id: session.id } } }))
    await load()
    say(`The session of ${deviceName(session.device)} has ended.`)
    $("#sessions-title").focus()
  }

  $("#sign-out-everywhere").addEventListener("click", () =>
    act(SECTION, async () => {
      if (!confirm("Sign out everywhere? Every session of yours ends, this one too.")) return
      await signOut(true)
    })
  )

  return { open: load }
}
