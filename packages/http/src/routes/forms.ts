import { Forms } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { created, ok } from "../Reply.js"
import { formsSubmit, route } from "../Route.js"
import { actorOf } from "./principal.js"

export const formRoutes = [
  route({
    method: "POST",
    path: "/forms/{id}/submissions",
    params: { id: Forms.FormId },
    operationId: "submitForm",
    tag: "forms",
    guard: formsSubmit,
    summary:
      "Submit answers to a form defined in the organisation settings: creates the contact (or links the live contact holding the mapped email), records the submission, emits form.submitted and, for a lead-source form, lead.received; refused answers are 422 submission_refused with {reason, field}",
    body: Forms.SubmissionCreate,
    success: { status: 201, schema: Forms.Submission, description: "the recorded submission" },
    errors: ["not_found", "submission_refused", "validation_failed"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Forms.Forms, (forms) =>
        forms.submit(principal.organisation, params.id, body, actorOf(principal))
      ).pipe(Effect.map(created))
  }),
  route({
    method: "GET",
    path: "/forms/{id}/counts",
    params: { id: Forms.FormId },
    operationId: "getFormCounts",
    tag: "forms",
    guard: formsSubmit,
    summary: "How many submissions a form has had: in all, in the last 30 days, and how many created their contact",
    success: { status: 200, schema: Forms.FormCounts, description: "the form's counts" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(Forms.Forms, (forms) => forms.counts(principal.organisation, params.id)).pipe(Effect.map(ok))
  })
]

export const formsArea: Area = {
  api: formRoutes,
  schemaNames: [
    ...named(Forms, "Form", "FormInput", "FormFieldType", "Submission", "SubmissionCreate", "FormCounts"),
    // As a record field (`recordsArea`): stored with defaults filled in, named apart in responses.
    [Forms.FormFieldInput, { input: "FormFieldInput", output: "FormField" }]
  ]
}
