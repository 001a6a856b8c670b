/** Website visits: page views recorded for analytics, attached to a contact when one is known. */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ContactId } from "./Contacts/ContactIds.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import type { StorageError, ValidationFailed } from "./Errors.js"
import { FormSubmissionRepository, type VisitorLink } from "./Forms/FormSubmissionRepository.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { nowIso, requireLink } from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { Transaction } from "./Transaction.js"
import { VisitId } from "./Visits/VisitIds.js"
import { VisitRepository } from "./Visits/VisitRepository.js"
import type { Visit, VisitCreate } from "./Visits/VisitSchemas.js"
import { toUtc } from "./Wire.js"

export * from "./Visits/VisitRepository.js"
export * from "./Visits/VisitSchemas.js"

export class Visits extends Context.Tag("@crm/core/Visits")<
  Visits,
  {
    /**
     * Records a page view. Its contact is the one sent (a live contact of the organisation), else
     * the one its visitor id was last linked to by a visit or a form submission, else none.
     */
    readonly record: (
      organisation: Organisation,
      input: VisitCreate
    ) => Effect.Effect<Visit, ValidationFailed | StorageError>
  }
>() {}

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* VisitRepository
  const submissions = yield* FormSubmissionRepository
  const contacts = yield* ContactRepository
  const tx = yield* Transaction

  // The latest link wins, whether a visit or a form submission made it.
  const known = (organisationId: OrganisationId, visitorId: string | undefined) =>
    visitorId === undefined
      ? Effect.succeed(Option.none<ContactId>())
      : Effect.map(
          Effect.all([
            repo.contactOfVisitor(organisationId, visitorId),
            submissions.contactOfVisitor(organisationId, visitorId)
          ]),
          ([byVisit, bySubmission]) => {
            const links = [...Option.toArray(byVisit), ...Option.toArray(bySubmission)]
            const latest = links.reduce<VisitorLink | undefined>(
              (best, link) => (best === undefined || Date.parse(link.at) > Date.parse(best.at) ? link : best),
              undefined
            )
            return Option.map(Option.fromNullable(latest), (link) => link.contactId)
          }
        )

  return Visits.of({
    record: operation("Visits.record")((organisation, input) =>
      tx.run(
        Effect.gen(function* () {
          yield* requireLink("contact_id", input.contact_id, (id) => contacts.get(organisation.id, id))
          const contactId = input.contact_id ?? Option.getOrNull(yield* known(organisation.id, input.visitor_id))
          const now = yield* nowIso
          const visit: Visit = {
            id: brand(VisitId, ids.next()),
            url: input.url,
            referrer: input.referrer ?? null,
            visitor_id: input.visitor_id ?? null,
            contact_id: contactId,
            occurred_at: input.occurred_at === undefined ? now : toUtc(input.occurred_at),
            created_at: now
          }
          yield* repo.insert(organisation.id, visit)
          return visit
        })
      )
    )
  })
})

export const layer = Layer.effect(Visits, make)
