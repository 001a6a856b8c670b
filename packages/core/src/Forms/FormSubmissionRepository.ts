import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { FormId } from "./FormIds.js"
import type { FormCounts, Submission } from "./FormSchemas.js"

/** The contact a visitor id was linked to, and when that link was recorded. */
export interface VisitorLink {
  readonly contactId: ContactId
  readonly at: string
}

/** Form submissions of one organisation: written once, never changed. */
export class FormSubmissionRepository extends Context.Tag("@crm/core/FormSubmissionRepository")<
  FormSubmissionRepository,
  {
    readonly insert: (organisationId: OrganisationId, submission: Submission) => Effect.Effect<void, StorageError>
    /** `last_30_days` counts submissions created at or after `since`. */
    readonly counts: (
      organisationId: OrganisationId,
      formId: FormId,
      since: string
    ) => Effect.Effect<Omit<FormCounts, "form_id">, StorageError>
    /** The contact of the latest submission that carried this visitor id, with the submission's time. */
    readonly contactOfVisitor: (
      organisationId: OrganisationId,
      visitorId: string
    ) => Effect.Effect<Option.Option<VisitorLink>, StorageError>
  }
>() {}
