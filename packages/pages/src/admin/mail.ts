/** An organisation's outgoing mail, newest first. */
import type { Schemas } from "@crm/client"
import { must } from "../shared/calls.js"
import { $, badge, element, formatTime, say } from "../shared/dom.js"
import { type PagedTable, pagedTable } from "../shared/table.js"
import { admin } from "./api.js"
import * as Chosen from "./chosen.js"
import { act } from "./forms.js"

type Message = Schemas["MailMessage"]

const TONES: Readonly<Record<Message["status"], string>> = { sent: "good", queued: "warn", failed: "bad" }

const mailRow = (message: Message) =>
  element(
    "tr",
    {},
    element("td", { class: "break" }, message.to),
    element("th", { scope: "row" }, message.subject),
    element("td", {}, badge(message.status, TONES[message.status])),
    element("td", {}, String(message.attempts)),
    element("td", { class: "break" }, message.last_error ?? "—"),
    element("td", {}, formatTime(message.created_at))
  )

export const mailSection = (): PagedTable => {
  const mailTable = pagedTable<Message>({
    body: "#mail-table tbody",
    more: "#mail-more",
    fetch: (query) =>
      must(admin().GET("/organisations/{id}/mail", { params: { path: { id: Chosen.organisation().id }, query } })),
    row: mailRow,
    columns: 6,
    empty: "No mail sent yet.",
    act
  })
  $("#mail-refresh").addEventListener("click", () =>
    act(async () => {
      await mailTable.reload()
      say("Mail refreshed.")
    })
  )
  return mailTable
}
