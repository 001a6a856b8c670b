import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { VisitorLink } from "../Forms/FormSubmissionRepository.js"
import type { OrganisationId } from "../Organisation.js"
import type { Visit } from "./VisitSchemas.js"

/** Recorded page views of one organisation: written once, never changed. */
export class VisitRepository extends Context.Tag("@crm/core/VisitRepository")<
  VisitRepository,
  {
    readonly insert: (organisationId: OrganisationId, visit: Visit) => Effect.Effect<void, StorageError>
    /** The contact of the latest-recorded visit with this visitor id that was attached to one, with its time. */
    readonly contactOfVisitor: (
      organisationId: OrganisationId,
      visitorId: string
    ) => Effect.Effect<Option.Option<VisitorLink>, StorageError>
  }
>() {}
