import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { LeadReceived } from "./LeadSchemas.js"

/** Leads received from external providers, one per provider and provider id in an organisation. */
export class LeadRepository extends Context.Tag("@crm/core/LeadRepository")<
  LeadRepository,
  {
    /**
     * Claims the lead for the calling unit of work: none when it is new (the caller then `record`s
     * it), else what was recorded when it was first received. A unit of work claiming a lead that
     * another one has claimed but not yet committed waits for it.
     */
    readonly claim: (
      organisationId: OrganisationId,
      provider: string,
      externalId: string,
      at: string
    ) => Effect.Effect<Option.Option<LeadReceived>, StorageError>
    /** Completes a lead claimed in the same unit of work. */
    readonly record: (organisationId: OrganisationId, lead: LeadReceived) => Effect.Effect<void, StorageError>
  }
>() {}
