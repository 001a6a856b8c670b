/**
 * The organisation's connected apps: the assistants people connected through the MCP endpoint's
 * authorization (OAuth), who connected each and when it last called; revoking one. A client names
 * itself (`client_name`, `client_id`) and nothing verifies either: both are shown as text only.
 */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, badge, button, element, formatTime, say } from "../shared/dom.js"
import { pagedTable } from "../shared/table.js"
import { settings } from "./api.js"
import { act } from "./forms.js"
import { mayRevoke } from "./keys.js"
import { madeBy, peopleNames } from "./names.js"
import { organisationId } from "./state.js"

type App = Schemas["AppSummary"]

const SECTION = "apps"

const appName = (app: App) => app.client_name ?? "(no name)"

const appStatus = (app: App) =>
  app.revoked_at === null
    ? badge("Active", "good")
    : element(
        "span",
        {},
        badge("Revoked", "bad"),
        element("br"),
        element("span", { class: "muted" }, formatTime(app.revoked_at))
      )

export interface AppsSection {
  readonly open: () => Promise<void>
}

export const appsSection = (): AppsSection => {
  let names: ReadonlyMap<string, string> = new Map()

  const table = pagedTable<App>({
    body: "#app-table tbody",
    more: "#apps-more",
    fetch: (query) =>
      must(settings.GET("/organisations/{id}/apps", { params: { path: { id: organisationId() }, query } })),
    row: (app) => row(app),
    columns: 6,
    empty: "No apps connected.",
    act: (load) => act(SECTION, load)
  })

  const row = (app: App) =>
    element(
      "tr",
      { "data-app-id": app.id },
      element(
        "th",
        { scope: "row" },
        appName(app),
        element("br"),
        element("code", { class: "muted break" }, app.client_id)
      ),
      element("td", {}, app.scopes.join(", ")),
      element(
        "td",
        {},
        madeBy(names, app.created_by),
        element("br"),
        element("span", { class: "muted" }, formatTime(app.created_at))
      ),
      element("td", {}, app.last_used_at === null ? "Never" : formatTime(app.last_used_at)),
      element("td", {}, appStatus(app)),
      element(
        "td",
        { class: "row-actions" },
        mayRevoke(app)
          ? button(
              { class: "danger", "aria-label": `Revoke ${appName(app)}` },
              () => act(SECTION, () => revoke(app)),
              "Revoke"
            )
          : ""
      )
    )

  const revoke = async (app: App) => {
    const name = appName(app)
    if (!confirm(`Revoke ${name}? Its tokens stop working at once.`)) return
    await must(
      settings.DELETE("/organisations/{id}/apps/{app_id}", {
        params: { path: { id: organisationId(), app_id: app.id } }
      })
    )
    await table.reload()
    say(`${name} revoked.`)
    $("#apps-title").focus()
  }

  return {
    open: async () => {
      // Names are a nicety: the list of apps is still shown when the people's list is refused.
      names = await peopleNames().catch(() => new Map())
      await table.reload()
    }
  }
}
