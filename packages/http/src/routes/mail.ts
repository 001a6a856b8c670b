/** The admin view of an organisation's mail outbox: what was queued, sent or failed, and why. */
import { Access, Mail, Organisation } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { admin, route } from "../Route.js"

export const adminMailRoutes = [
  route({
    method: "GET",
    path: "/organisations/{id}/mail",
    params: { id: Organisation.OrganisationId },
    operationId: "adminListMail",
    tag: "admin",
    guard: admin,
    summary:
      "The organisation's outgoing mail, newest first: status queued (waiting or retrying with backoff), sent, or failed once every attempt failed; attempts and the last error are kept",
    query: Mail.MailListQuery,
    success: { status: 200, schema: Mail.MailPage, description: "a page of messages" },
    errors: ["not_found", "validation_failed"],
    handle: ({ params, query }) =>
      Effect.gen(function* () {
        const organisation = yield* (yield* Access.Access).getOrganisation(params.id)
        return yield* (yield* Mail.Mailer).list(organisation, query)
      }).pipe(Effect.map(ok))
  })
]

export const mailArea: Area = {
  admin: adminMailRoutes,
  schemaNames: named(Mail, "MailMessage", "MailPage", "MailStatus")
}
